import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { readLatestRunId } from '@delta/journal';
import { runDelta } from './test-support.js';

// What `delta fork` prints while it rebuilds the workspace: what it does and how it went, never that the
// rebuild's replay run (which stops after iteration N by design) reached an iteration budget.

let servers: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  await cleanupTempDirs();
});

async function server(script: Parameters<typeof startFakeLlm>[0]['script']): Promise<FakeLlm> {
  const started = await startFakeLlm({ script });
  servers.push(started);
  return started;
}

const agentYaml = {
  name: 'stepper',
  llm: { model: 'test-model' },
  tools: [{ name: 'step', description: 'Do step n', exec: 'echo did step ${n}', parameters: [{ name: 'n', type: 'integer' }] }],
};

/** A recorded run of three iterations: steps 1 and 2, then the answer. */
async function recordedRun(): Promise<{ work: string; runId: string }> {
  const llm = await server([
    ...[1, 2].map((n) => ({ content: `Doing step ${n}.`, tool_calls: [{ name: 'step', arguments: { n } }] })),
    { content: 'Both steps are done.' },
  ]);
  const agent = await createTempAgent({ agentYaml });
  const work = join(await createTempDir('work-'), 'ws');
  const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Do the two steps', '-q'], {
    env: { DELTA_BASE_URL: llm.baseUrl },
  });
  expect(run.exitCode, run.stderr).toBe(0);
  return { work, runId: readLatestRunId(work)! };
}

describe('delta fork: its output', () => {
  it('says it rebuilds the workspace and that the rebuild replayed as recorded, never that a run ended at its iteration budget', async () => {
    const { work, runId } = await recordedRun();
    const live = await server([{ content: 'Done differently.' }]);
    const into = join(await createTempDir('fork-'), 'ws');
    const fork = await runDelta(['fork', '-w', work, '--at', '2', '--into', into], { env: { DELTA_BASE_URL: live.baseUrl } });
    expect(fork.exitCode, fork.stderr).toBe(0);
    expect(fork.stderr).toContain(`rebuilding the fork's workspace: replaying iterations 1..2 of run ${runId} in ${into}\n`);
    expect(fork.stderr).toMatch(/\nrebuilt: iterations 1\.\.2 replayed as recorded \(replay run \S+\)\n/);
    expect(fork.stderr).not.toContain('INTERRUPTED (reached the iteration budget');
    expect(fork.stderr).not.toContain('--max-iterations');
    expect(fork.stderr).toContain(`Forked run ${runId} after iteration 2`);
  });
});
