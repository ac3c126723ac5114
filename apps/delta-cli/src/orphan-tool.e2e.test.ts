import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { isProcessAlive, isProcessGroupAlive, readProcessFile } from '@delta/process-identity';
import { runDelta } from './test-support.js';

/** The tool's process group, stopped here if the test failed before the engine stopped it. */
let toolGroup = 0;
afterEach(async () => {
  if (toolGroup > 0 && isProcessGroupAlive(toolGroup)) process.kill(-toolGroup, 'SIGKILL');
  toolGroup = 0;
  await cleanupTestResources();
});

describe('a tool left running by a killed engine', () => {
  it('is stopped when the run is resumed, and the model is told', async () => {
    const server = await startFakeLlm({
      script: [{ tool_calls: [{ name: 'slow', arguments: {} }] }, { content: 'resumed and done' }],
    });
    const agent = await createTempAgent({
      agentYaml: {
        name: 'orphan',
        llm: { model: 'm' },
        // Unsandboxed: in the sandbox a killed engine takes the run's PID namespace, and the tool, with it.
        sandbox: { mode: 'off' },
        // Its background child outlives the tool's shell unless the whole process group is stopped. Both
        // outlast any test: only stopping the group ends them in time.
        tools: [{ name: 'slow', description: 'Takes a while', shell: '(sleep 600; touch late-write) & sleep 600' }],
      },
    });
    const work = join(await createTempDir('work-'), 'w');
    const env = modelEnv(server);
    let enginePid = 0;
    const first = runDelta(['run', '--agent', agent, '-m', 'go', '-w', work], { env, onSpawn: (pid) => (enginePid = pid) });

    const executions = join(work, '.delta');
    // The tool has started once its process file names it (the engine writes it as the tool starts).
    let tool: { pid: number; start_ticks?: string } | undefined;
    await expect
      .poll(
        () => {
          const runId = existsSync(join(executions, 'LATEST')) ? readFileSync(join(executions, 'LATEST'), 'utf8').trim() : '';
          tool = runId ? readProcessFile(join(executions, runId, 'io', 'tool_executions', 'call_1_1', 'process.json')) : undefined;
          return tool !== undefined;
        },
        { timeout: 30_000, interval: 20, message: 'the tool to start' },
      )
      .toBe(true);
    const { pid, start_ticks: startTicks } = tool!;
    toolGroup = pid;
    expect(startTicks).toMatch(/^\d+$/);
    process.kill(enginePid, 'SIGKILL');
    expect((await first).exitCode).toBeNull();
    expect(isProcessAlive(pid, startTicks)).toBe(true);

    const resumed = await runDelta(['continue', '-w', work], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe('resumed and done\n');
    expect(isProcessAlive(pid, startTicks)).toBe(false);
    // Its background child was in the same group: the group ends (every member stopped, not left to run
    // for ten minutes, which would time this wait out), so late-write can never be written.
    await expect
      .poll(() => !isProcessGroupAlive(pid), { timeout: 30_000, interval: 20, message: "the tool's process group to end" })
      .toBe(true);
    expect(existsSync(join(work, 'late-write'))).toBe(false);

    const runId = readFileSync(join(executions, 'LATEST'), 'utf8').trim();
    const result = readJournal(join(executions, runId, 'journal.jsonl')).find((event) => event.type === 'ACTION_RESULT');
    expect(result?.type === 'ACTION_RESULT' && result.observation_content).toContain(
      `and its process (pid ${pid}), still running, was stopped`,
    );
    expect(readdirSync(join(executions, runId, 'io', 'tool_executions'))).toEqual(['call_1_1']);
  });
});
