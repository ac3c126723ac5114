import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from '@delta/engine';
import { SystemError } from '@delta/errors';
import { runPaths } from '@delta/journal';
import { afterAll, describe, expect, it } from 'vitest';
import { reportOutcome } from './report-outcome.js';

const workDir = mkdtempSync(join(tmpdir(), 'views-outcome-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function tell(result: Partial<RunResult>, options: { json?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const errors: unknown[] = [];
  const paths = runPaths(workDir, 'r1');
  const code = reportOutcome({ runId: 'r1', workDir, paths, exitCode: 9, ...result } as RunResult, {
    ...options,
    elapsedMs: 1,
    cwd: workDir,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    printError: (error) => errors.push(error),
  });
  return { code, out: out.join(''), err: err.join(''), errors };
}

describe('how a run ended, told through the writers it is given', () => {
  it('writes the answer alone on stdout, and --json the OUTCOME line', () => {
    expect(tell({ status: 'COMPLETED', finalAnswer: 'Done.' })).toEqual({ code: 9, out: 'Done.\n', err: '', errors: [] });
    expect(JSON.parse(tell({ status: 'COMPLETED', finalAnswer: 'Done.' }, { json: true }).out)).toEqual({
      type: 'OUTCOME',
      run_id: 'r1',
      work_dir: workDir,
      status: 'COMPLETED',
      exit_code: 9,
      final_answer: 'Done.',
    });
  });

  it('says how to resume an interrupted run and where to answer a paused one, naming the run that is not the latest', () => {
    expect(tell({ status: 'INTERRUPTED', reason: 'the time limit' }).err).toBe(
      `Run r1 stopped: the time limit.\nResume it with: delta continue -w ${workDir} --run-id r1\n`,
    );
    expect(tell({ status: 'WAITING_FOR_INPUT', reason: 'Which file?' }).err).toBe(
      `Which file?\nAgent paused. Provide response in .delta/r1/interaction/response.txt\nOr use: delta continue -w ${workDir} --run-id r1 -m <response>\n`,
    );
  });

  it('hands a transient failure to printError with a hint that names this workspace', () => {
    const error = new SystemError('The server is down.', {
      code: 'MODEL_CONNECTION_LOST',
      hint: 'Wait, then `delta continue -w <workspace>`.',
    });
    const told = tell({ status: 'FAILED', resumable: true, error });
    expect((told.errors[0] as SystemError).hint).toBe(`Wait, then \`delta continue -w ${workDir} --run-id r1\`.`);
    expect(error.hint).toBe('Wait, then `delta continue -w <workspace>`.');
    expect(told.err).toBe(`The run is recorded in ${join(workDir, '.delta', 'r1')}\n`);
  });
});
