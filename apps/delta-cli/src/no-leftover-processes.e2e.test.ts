import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { isProcessGroupAlive, readProcessFile } from '@delta/process-identity';
import { runDelta } from './test-support.js';

let toolGroup = 0;
afterEach(async () => {
  // Only if the test failed: the sleeps are not left to outlive it.
  if (toolGroup > 0 && isProcessGroupAlive(toolGroup)) process.kill(-toolGroup, 'SIGKILL');
  toolGroup = 0;
  await cleanupTestResources();
});

describe('no process outlives its run (unsandboxed)', () => {
  it('stops the 50 background sleeps a tool started, once the tool has exited', async () => {
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'spawn_sleeps', arguments: {} }] }, { content: 'done' }] });
    const agent = await createTempAgent({
      agentYaml: {
        name: 'leftovers',
        llm: { model: 'm' },
        // Unsandboxed: the process group is what stops them (sandboxed, the run's PID namespace does too).
        sandbox: { mode: 'off' },
        tools: [{ name: 'spawn_sleeps', description: 'Starts 50 sleeps', shell: 'for i in $(seq 50); do sleep 600 & done; echo started' }],
      },
    });
    const work = await createTempDir('work-');
    const result = await runDelta(['run', '--agent', agent, '-m', 'go', '-w', work], {
      env: modelEnv(server),
    });
    expect(result.exitCode).toBe(0);
    const run = join(work, '.delta', readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim());
    const executions = join(run, 'io', 'tool_executions');
    const [execution] = readdirSync(executions);
    expect(readFileSync(join(executions, execution!, 'stdout.log'), 'utf8')).toBe('started\n');
    const tool = readProcessFile(join(executions, execution!, 'process.json'));
    expect(tool?.pid).toBeGreaterThan(0);
    toolGroup = tool!.pid;
    // The sleeps were in the tool's process group: none of them is left.
    await expect
      .poll(() => !isProcessGroupAlive(toolGroup), { timeout: 30_000, interval: 20, message: 'the tool group to be gone' })
      .toBe(true);
  });
});
