import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { runDelta } from './test-support.js';

let server: FakeLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Alive and not a zombie (this machine's init may never reap orphans, so a dead one can linger as Z). */
function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '');
}

describe('a tool left running by a killed engine', () => {
  it('is stopped when the run is resumed, and the model is told', async () => {
    server = await startFakeLlm({
      script: [{ tool_calls: [{ name: 'slow', arguments: {} }] }, { content: 'resumed and done' }],
    });
    const agent = await createTempAgent({
      agentYaml: {
        name: 'orphan',
        llm: { model: 'm' },
        // Its child outlives the tool's shell unless the whole process group is stopped.
        tools: [{ name: 'slow', description: 'Takes a while', shell: '(sleep 2; touch late-write) & sleep 30' }],
      },
    });
    const work = join(await createTempDir('work-'), 'w');
    const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl };
    let enginePid = 0;
    const first = runDelta(['run', '--agent', agent, '-m', 'go', '-w', work], { env, onSpawn: (pid) => (enginePid = pid) });

    const executions = join(work, '.delta');
    let processFile: string | undefined;
    for (let attempt = 0; attempt < 200 && !processFile; attempt += 1) {
      await sleep(25);
      const runId = existsSync(join(executions, 'LATEST')) ? readFileSync(join(executions, 'LATEST'), 'utf8').trim() : '';
      const file = runId && join(executions, runId, 'io', 'tool_executions', 'call_1_1', 'process.json');
      if (file && existsSync(file)) processFile = file;
    }
    expect(processFile).toBeDefined();
    const { pid, start_ticks: startTicks } = JSON.parse(readFileSync(processFile!, 'utf8')) as { pid: number; start_ticks: string };
    expect(startTicks).toMatch(/^\d+$/);
    process.kill(enginePid, 'SIGKILL');
    expect((await first).exitCode).toBeNull();
    expect(alive(pid)).toBe(true);

    const resumed = await runDelta(['continue', '-w', work], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe('resumed and done\n');
    expect(alive(pid)).toBe(false);
    await sleep(2500);
    expect(existsSync(join(work, 'late-write'))).toBe(false);

    const runId = readFileSync(join(executions, 'LATEST'), 'utf8').trim();
    const result = readJournal(join(executions, runId, 'journal.jsonl')).find((event) => event.type === 'ACTION_RESULT');
    expect(result?.type === 'ACTION_RESULT' && result.observation_content).toContain(
      `and its process (pid ${pid}), still running, was stopped`,
    );
    expect(readdirSync(join(executions, runId, 'io', 'tool_executions'))).toEqual(['call_1_1']);
  });
});
