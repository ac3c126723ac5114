import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { copyExample, latestRun, observation, runScripted } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/1-basics/calculator', () => {
  it('passes values as arguments, on stdin and as an option, and a hostile value stays text', async () => {
    const agent = await copyExample('1-basics/calculator');
    const result = await runScripted(join(agent, 'fake-llm.yaml'), [
      'run',
      '--agent',
      agent,
      '-m',
      'What is the square root of (1234 + 5678) / 3?',
      '-y',
    ]);
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('The square root of (1234 + 5678) / 3 is 48.\n');

    const workspace = join(agent, 'workspaces', 'W001');
    const { runDir, metadata, journal } = latestRun(workspace);
    expect(metadata).toMatchObject({ status: 'COMPLETED', iterations: 5 });
    const ran = (id: string) => readFileSync(join(runDir, 'io/tool_executions', id, 'command.txt'), 'utf8');
    // Arguments.
    expect(observation(journal, 'call_1_1')).toBe('6912');
    expect(ran('call_1_1')).toMatch(/calc\.py binary add 1234 5678\n?$/);
    // stdin: "; rm -rf ~" reached the parser as text and was refused there.
    expect(observation(journal, 'call_2_1')).toContain('error: invalid syntax');
    expect(readFileSync(join(runDir, 'io/tool_executions/call_2_1/exit_code.txt'), 'utf8').trim()).toBe('1');
    // An option, with its flag.
    expect(observation(journal, 'call_3_1')).toBe('48');
    expect(ran('call_3_1')).toMatch(/calc\.py evaluate --precision 2\n?$/);
    // shell: with a redirection, the values quoted.
    expect(readFileSync(join(workspace, 'results.txt'), 'utf8')).toBe('sqrt((1234 + 5678) / 3) = 48\n');
  });
});
