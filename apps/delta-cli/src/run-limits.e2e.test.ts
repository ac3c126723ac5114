import { join } from 'node:path';
import { readMetadata, readLatestRunId, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

afterEach(() => cleanupTempDirs());

describe('delta run --timeout and --max-cost', () => {
  it('--timeout ends the run INTERRUPTED with exit 3 and the reason; delta continue finishes it', async () => {
    const llm = await startFakeLlm({ script: [{ tool_calls: [{ name: 'slow', arguments: {} }] }, { content: 'finished' }] });
    try {
      const agent = await createTempAgent({
        agentYaml: {
          name: 'slow',
          llm: { model: 'm', max_retries: 0 },
          tools: [{ name: 'slow', description: 'Sleeps', exec: 'sleep 30' }],
        },
      });
      const workDir = join(await createTempDir(), 'w');
      const env = modelEnv(llm);
      const run = await runDelta(['run', '--agent', agent, '-w', workDir, '-m', 'go', '--timeout', '1s'], { env });
      expect(run.exitCode).toBe(3);
      expect(run.stderr).toContain('reached the time limit (--timeout 1s) before the task was complete');
      const metadata = readMetadata(runPaths(workDir, readLatestRunId(workDir)!).metadata);
      expect(metadata).toMatchObject({
        status: 'INTERRUPTED',
        status_reason: 'reached the time limit (--timeout 1s) before the task was complete',
      });
      const resumed = await runDelta(['continue', '-w', workDir], { env });
      expect(resumed.exitCode).toBe(0);
      expect(resumed.stdout).toBe('finished\n');
    } finally {
      await llm.close();
    }
  });

  it('refuses a bad --timeout or --max-cost, and --max-cost without llm.pricing, with exit 2', async () => {
    const agent = await createTempAgent();
    const workDir = join(await createTempDir(), 'w');
    const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: 'http://127.0.0.1:9/v1' };
    const timeout = await runDelta(['run', '--agent', agent, '-w', workDir, '-m', 'go', '--timeout', 'soon'], { env });
    expect(timeout.exitCode).toBe(2);
    expect(timeout.stderr).toContain('--timeout must be a duration such as 90s, 5m, 1h or 7d, got "soon".');
    const cost = await runDelta(['run', '--agent', agent, '-w', workDir, '-m', 'go', '--max-cost', '0'], { env });
    expect(cost.exitCode).toBe(2);
    expect(cost.stderr).toContain('--max-cost must be a positive amount');
    const unpriced = await runDelta(['run', '--agent', agent, '-w', workDir, '-m', 'go', '--max-cost', '0.5'], { env });
    expect(unpriced.exitCode).toBe(2);
    expect(unpriced.stderr).toContain('--max-cost needs prices to know what a run costs, and agent.yaml has no llm.pricing.');
  });
});
