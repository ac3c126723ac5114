import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal, readMetadata } from '@delta/journal';
import { continueRun, loadAgent, startRun } from './index.js';
import { ExitCode } from './exit-codes.js';

// --timeout and --max-cost (EngineOptions timeoutMs and maxCost): the run stops INTERRUPTED with the
// limit as its reason, exit code 3, and a plain continue resumes it.

afterEach(cleanupTestResources);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('run limits', () => {
  it('timeoutMs stops a run in its tool as a signal would, says so, and the run continues afterwards', async () => {
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'slow', arguments: {} }] }, { content: 'finished' }] });
    const home = await createTempAgent({
      agentYaml: {
        name: 'slow',
        llm: { model: 'm', max_retries: 0 },
        // Unsandboxed: the test reads the tool's pid, which in the sandbox's PID namespace is not the host's.
        sandbox: { mode: 'off' },
        tools: [{ name: 'slow', description: 'Sleeps', exec: '${AGENT_HOME}/slow.sh ${CWD}/tool.pid' }],
      },
      files: { 'slow.sh': { content: '#!/bin/sh\necho $$ > "$1"\nexec sleep 30\n', mode: 0o755 } },
    });
    const workDir = join(await createTempDir('work-'), 'w');
    const options = { baseUrl: server.baseUrl, apiKey: 'k' };
    const result = await startRun({ ...options, agent: loadAgent(home), message: 'go', workDir, timeoutMs: 1500 });
    expect(result).toMatchObject({
      status: 'INTERRUPTED',
      exitCode: ExitCode.ITERATION_BUDGET,
      reason: 'reached the time limit (--timeout 1.5s) before the task was complete',
    });
    const pid = Number(readFileSync(join(workDir, 'tool.pid'), 'utf8'));
    expect(isAlive(pid)).toBe(false);
    const events = readJournal(result.paths.journal);
    expect(events.filter((event) => event.type === 'ACTION_RESULT')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'INTERRUPTED', reason: result.reason });
    expect(readMetadata(result.paths.metadata)).toMatchObject({ status: 'INTERRUPTED', status_reason: result.reason });

    const resumed = await continueRun({ ...options, workDir });
    expect(resumed).toMatchObject({ status: 'COMPLETED', finalAnswer: 'finished' });
  });

  it("timeLimitMs is the run's time over all its invocations: a continue has what is left, then limits_hit time", async () => {
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'slow', arguments: {} }] },
        { tool_calls: [{ name: 'slow', arguments: {} }] },
        { content: 'finished' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'slow',
        llm: { model: 'm', max_retries: 0 },
        sandbox: { mode: 'off' },
        tools: [{ name: 'slow', description: 'Sleeps', exec: 'sleep 30' }],
      },
    });
    const workDir = join(await createTempDir('work-'), 'w');
    const options = { baseUrl: server.baseUrl, apiKey: 'k' };
    // The first invocation stopped by its own --timeout after 1.2 s of the run's 2 s.
    const first = await startRun({ ...options, agent: loadAgent(home), message: 'go', workDir, timeoutMs: 1200, timeLimitMs: 2000 });
    expect(first).toMatchObject({ status: 'INTERRUPTED', reason: 'reached the time limit (--timeout 1.2s) before the task was complete' });
    expect(readMetadata(first.paths.metadata).limits_hit).toBeUndefined();
    const started = Date.now();
    const second = await continueRun({ ...options, workDir, timeLimitMs: 2000 });
    // What was left: about 0.8 s, not another 2 s.
    expect(Date.now() - started).toBeLessThan(1800);
    expect(second).toMatchObject({
      status: 'INTERRUPTED',
      exitCode: ExitCode.ITERATION_BUDGET,
      reason: "reached the run's time limit (2s of wall time) before the task was complete",
    });
    expect(readMetadata(second.paths.metadata).limits_hit).toEqual(['time']);
    expect(readJournal(second.paths.journal).at(-1)).toMatchObject({ type: 'ENGINE_END', limits_hit: ['time'] });
  });

  it('maxCost stops the run before a model call once this invocation has spent it; a continue gets a new allowance', async () => {
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'echo', arguments: { text: 'a' } }], usage: { prompt_tokens: 1000, completion_tokens: 100 } },
        { tool_calls: [{ name: 'echo', arguments: { text: 'b' } }], usage: { prompt_tokens: 1000, completion_tokens: 100 } },
        { content: 'done', usage: { prompt_tokens: 1000, completion_tokens: 100 } },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'spender',
        // 1,000 tokens in and 100 out cost 0.002 + 0.001 = 0.003 USD a call.
        llm: { model: 'm', max_retries: 0, pricing: { input_per_million: 2, output_per_million: 10 } },
        tools: [{ name: 'echo', description: 'Echo', exec: 'echo -- ${text}' }],
      },
    });
    const workDir = join(await createTempDir('work-'), 'w');
    const options = { baseUrl: server.baseUrl, apiKey: 'k' };
    const result = await startRun({ ...options, agent: loadAgent(home), message: 'go', workDir, maxCost: 0.005 });
    expect(result).toMatchObject({ status: 'INTERRUPTED', exitCode: ExitCode.ITERATION_BUDGET });
    expect(result.reason).toBe(
      'reached the cost limit (--max-cost 0.005 USD): 0.0060 USD spent by this invocation before the task was complete',
    );
    // Two calls (0.003 each): the second took it past the limit, and no third was made.
    expect(server.requests).toHaveLength(2);

    const resumed = await continueRun({ ...options, workDir, maxCost: 0.005 });
    expect(resumed).toMatchObject({ status: 'COMPLETED', finalAnswer: 'done' });
    expect(server.requests).toHaveLength(3);
  });

  it('refuses maxCost for an agent without llm.pricing, before the run starts', async () => {
    const home = await createTempAgent();
    const workDir = join(await createTempDir('work-'), 'w');
    await expect(
      startRun({ agent: loadAgent(home), message: 'go', workDir, baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', maxCost: 1 }),
    ).rejects.toMatchObject({
      code: 'USAGE',
      message: '--max-cost needs prices to know what a run costs, and agent.yaml has no llm.pricing.',
    });
    expect(existsSync(join(workDir, '.delta'))).toBe(false);
  });
});
