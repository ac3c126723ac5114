import { cleanupTempDirs } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { setup, startLlm, stopLlm } from './batch.test-support.js';

beforeAll(() => startLlm());
afterEach(() => cleanupTempDirs());
afterAll(stopLlm);

// A benchmark's verifier over five runs: two resolved, one not, and two it could give no verdict on (it
// crashed with exit 2; it printed a JSON line without a score). The report counts them apart.
const VERIFIER = [
  'case "$DELTA_TASK_ID" in',
  '  task-1|task-2) exit 0;;',
  '  task-3) exit 1;;',
  '  task-4) echo "the verifier cannot find its tests" >&2; exit 2;;',
  `  *) echo '{"reward": 1}';;`,
  'esac',
].join('\n');

describe('delta report of a verified batch', () => {
  it('gives the pass rate with its interval over the verified runs, and counts failed verifications and verifier errors apart', async () => {
    const { agent, tasksFile, out, env } = await setup(5);
    const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--grader', VERIFIER], { env });
    expect(batch.exitCode, batch.stderr).toBe(0);

    const text = await runDelta(['report', out]);
    expect(text.exitCode).toBe(0);
    const lines = text.stdout.split('\n');
    const header = lines.find((line) => line.startsWith('model '))!;
    expect(header.split(/ {2,}/).slice(0, 10)).toEqual([
      'model',
      'runs',
      'completed',
      'failed',
      'unfinished',
      'hit a limit',
      'passed',
      'failed verification',
      'verifier errors',
      'pass rate [95% CI]',
    ]);
    // 2 of 3 verified: Wilson's 95% interval for 2/3 is [21%, 94%]; the two verifier errors are not in it.
    expect(
      lines
        .find((line) => line.startsWith('fake-model '))!
        .split(/ {2,}/)
        .slice(0, 10),
    ).toEqual(['fake-model', '5', '5', '0', '0', '0', '2/3', '1', '2', '67% [21-94]']);
    expect(
      lines
        .find((line) => line.startsWith('task-4 '))!
        .split(/ {2,}/)
        .slice(0, 10),
    ).toEqual(['task-4', '1', '1', '0', '0', '0', '-', '-', '1', '-']);
    expect(text.stdout).toContain(
      'A verifier error (the grader could not run, timed out, crashed or gave no verdict) is left out of the rate',
    );

    const json = JSON.parse((await runDelta(['report', out, '--json'])).stdout);
    expect(json.by_model[0]).toMatchObject({
      runs: 5,
      scored: 3,
      passes: 2,
      failed_verifications: 1,
      verifier_errors: 2,
      limit_hits: 0,
      metric: 'pass_rate',
    });
    expect(json.runs.map((run: { grade_error: string | null }) => run.grade_error)).toEqual([
      null,
      null,
      null,
      'the grader exited with code 2 and printed no {"score": ...} line; its stderr ends: the verifier cannot find its tests',
      'the grader printed a JSON object without a numeric "score"',
    ]);
    const csv = (await runDelta(['report', out, '--csv'])).stdout.split('\n');
    expect(csv[0]).toMatch(/,median_duration_ms,limit_hits,passes,failed_verifications,verifier_errors,model,task$/);
    expect(csv[1]).toMatch(/^model,fake-model,5,5,0,0,3,pass_rate,0\.6667,.*,0,2,1,2,,$/);
  });
});
