import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { PATH_WITH_REPOSITORY_BINS, copyExample, latestRun, observation, runProcess, runScripted } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/2-core-features/python-repl', () => {
  it('keeps variables and imports in one python3 process across calls, survives a traceback, and ends it', async () => {
    const agent = await copyExample('2-core-features/python-repl');
    const result = await runScripted(join(agent, 'fake-llm.yaml'), ['run', '--agent', agent, '-m', "Summarise this week's sales", '-y'], {
      env: { PATH: PATH_WITH_REPOSITORY_BINS },
    });
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("This week's sales total 835");

    const workspace = join(agent, 'workspaces', 'W001');
    expect(JSON.parse(readFileSync(join(workspace, 'sales-summary.json'), 'utf8'))).toEqual({
      total: 835,
      mean: 119.3,
      median: 120,
      best_day: 'Fri',
    });
    const { metadata, journal } = latestRun(workspace);
    expect(metadata).toMatchObject({ status: 'COMPLETED', iterations: 7 });
    const started = JSON.parse(observation(journal, 'call_1_1'));
    expect(started).toMatchObject({ command: 'python3', status: 'active' });
    // `sales` and `statistics` from the call before; the final expression is echoed like at the prompt.
    expect(JSON.parse(observation(journal, 'call_3_1'))).toMatchObject({ stdout: "(119.3, 'Fri')\n", exit_code: 0 });
    expect(JSON.parse(observation(journal, 'call_4_1'))).toMatchObject({ exit_code: 1, stderr: expect.stringContaining('IndexError') });
    expect(JSON.parse(observation(journal, 'call_5_1'))).toMatchObject({ stdout: 'saved sales-summary.json\n', exit_code: 0 });
    const list = await runProcess('delta-sessions', ['list'], { cwd: workspace, env: { PATH: PATH_WITH_REPOSITORY_BINS } });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ session_id: started.session_id, status: 'terminated' })]);
  });

  // docs/sessions.md and docs/hooks.md: `on_run_end: delta-sessions cleanup` ends what the model forgot.
  it('ends a session the model never ended through the on_run_end hook the docs show', async () => {
    const agent = await copyExample('2-core-features/python-repl');
    writeFileSync(join(agent, 'hooks.yaml'), 'on_run_end:\n  command: ["delta-sessions", "cleanup"]\n');
    const script = join(agent, 'forgetful.yaml');
    writeFileSync(
      script,
      [
        'steps:',
        '  - tool_calls:',
        '      - name: python_start',
        '        arguments: { name: py }',
        '  - tool_calls:',
        '      - name: python_exec',
        '        arguments: { name: py, code: "x = 1" }',
        '  - content: Done, and I forgot to end the session.',
        '',
      ].join('\n'),
    );
    // Unsandboxed, as the docs' hook is for: in the sandbox the session ends with the run's PID namespace
    // anyway, and its metadata's pid is a pid of that namespace, which this test cannot look up from outside.
    const result = await runScripted(script, ['run', '--agent', agent, '-m', 'Start and forget', '-y', '--sandbox', 'off'], {
      env: { PATH: PATH_WITH_REPOSITORY_BINS },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const workspace = join(agent, 'workspaces', 'W001');
    const { journal } = latestRun(workspace, 'off');
    const started = JSON.parse(observation(journal, 'call_1_1'));
    const metadata = JSON.parse(readFileSync(join(workspace, '.sessions', started.session_id, 'metadata.json'), 'utf8'));
    expect(metadata.status).toBe('terminated');
    // The session's process is gone (a zombie not yet reaped by init counts as gone).
    const state = (() => {
      try {
        return readFileSync(`/proc/${metadata.pid}/stat`, 'utf8').split(') ')[1]?.[0];
      } catch {
        return 'gone';
      }
    })();
    expect(['gone', 'Z', 'X']).toContain(state);
    const list = await runProcess('delta-sessions', ['list'], { cwd: workspace, env: { PATH: PATH_WITH_REPOSITORY_BINS } });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ session_id: started.session_id, status: 'terminated' })]);
  });
});
