// Sessions talk to their session process over a unix socket in the workspace's .sessions/, which the
// sandbox's tools create themselves: with the network off (its own network namespace, and this machine's
// unix sockets covered), they still work. (issue 32)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { PATH_WITH_REPOSITORY_BINS, copyExample, latestRun, observation, runScripted } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples with sessions, sandboxed with the network off (--no-network)', () => {
  it('python-repl keeps its python3 session across calls', async () => {
    const agent = await copyExample('2-core-features/python-repl');
    const result = await runScripted(
      join(agent, 'fake-llm.yaml'),
      ['run', '--agent', agent, '-m', "Summarise this week's sales", '-y', '--no-network'],
      {
        env: { PATH: PATH_WITH_REPOSITORY_BINS },
      },
    );
    expect(result.stderr).toContain('(sandbox: bubblewrap, workspace-write, network off)');
    expect(result.stderr).toContain('ended: COMPLETED');
    const workspace = join(agent, 'workspaces', 'W001');
    expect(JSON.parse(readFileSync(join(workspace, 'sales-summary.json'), 'utf8'))).toMatchObject({ total: 835 });
    const { journal } = latestRun(workspace);
    expect(JSON.parse(observation(journal, 'call_3_1'))).toMatchObject({ stdout: "(119.3, 'Fri')\n", exit_code: 0 });
  });

  it('interactive-shell keeps its bash session across calls', async () => {
    const agent = await copyExample('2-core-features/interactive-shell');
    const result = await runScripted(
      join(agent, 'fake-llm.yaml'),
      ['run', '--agent', agent, '-m', 'Prepare a release build directory', '-y', '--no-network'],
      {
        env: { PATH: PATH_WITH_REPOSITORY_BINS },
      },
    );
    expect(result.stderr).toContain('(sandbox: bubblewrap, workspace-write, network off)');
    expect(result.stderr).toContain('ended: COMPLETED');
    const workspace = join(agent, 'workspaces', 'W001');
    expect(readFileSync(join(workspace, 'build', 'build.log'), 'utf8')).toBe('release: configure\nrelease: compile\nrelease: link\n');
    const { journal } = latestRun(workspace);
    expect(JSON.parse(observation(journal, 'call_3_1'))).toMatchObject({ stdout: 'mode release in build, 3 steps logged\n', exit_code: 0 });
  });
});
