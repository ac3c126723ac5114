import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { PATH_WITH_REPOSITORY_BINS, copyExample, latestRun, observation, runProcess, runScripted } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/2-core-features/interactive-shell', () => {
  it('keeps the working directory and exported variables between calls of one bash session', async () => {
    const agent = await copyExample('2-core-features/interactive-shell');
    const result = await runScripted(
      join(agent, 'fake-llm.yaml'),
      ['run', '--agent', agent, '-m', 'Prepare a release build directory', '-y'],
      {
        env: { PATH: PATH_WITH_REPOSITORY_BINS },
      },
    );
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('I created build/ and logged three release steps in build/build.log');

    const workspace = join(agent, 'workspaces', 'W001');
    expect(readFileSync(join(workspace, 'build', 'build.log'), 'utf8')).toBe('release: configure\nrelease: compile\nrelease: link\n');
    const { metadata, journal } = latestRun(workspace);
    expect(metadata).toMatchObject({ status: 'COMPLETED', iterations: 6 });
    const started = JSON.parse(observation(journal, 'call_1_1'));
    expect(started).toMatchObject({ session_id: expect.stringMatching(/^sess_/), command: 'bash', status: 'active' });
    expect(JSON.parse(observation(journal, 'call_3_1'))).toMatchObject({ stdout: 'mode release in build, 3 steps logged\n', exit_code: 0 });
    // A failing command is an answer, not an error.
    expect(JSON.parse(observation(journal, 'call_4_1'))).toMatchObject({ stdout: '', exit_code: 1 });
    expect(JSON.parse(observation(journal, 'call_5_1'))).toEqual({ status: 'terminated', session_id: started.session_id });
    // The session lived in the workspace's .sessions/ and is over; its name is forgotten.
    const list = await runProcess('delta-sessions', ['list'], { cwd: workspace, env: { PATH: PATH_WITH_REPOSITORY_BINS } });
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ session_id: started.session_id, status: 'terminated' })]);
    expect(readdirSync(join(workspace, '.sessions', 'names'))).toEqual([]);
  });
});
