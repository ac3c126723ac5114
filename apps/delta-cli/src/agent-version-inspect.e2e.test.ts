import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

// `delta show run`, `delta diff` and `delta replay` say which version of its agent a run was made with.

let servers: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  await cleanupTempDirs();
});

const agentYaml = {
  name: 'stepper',
  llm: { model: 'test-model' },
  tools: [{ name: 'step', description: 'Do a step', exec: '${AGENT_HOME}/step.sh' }],
};
const twoCalls = [{ content: 'Stepping.', tool_calls: [{ name: 'step', arguments: {} }] }, { content: 'Done.' }];

async function runIn(agent: string): Promise<string> {
  const llm = await startFakeLlm({ script: twoCalls });
  servers.push(llm);
  const work = join(await createTempDir('work-'), 'ws');
  const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Take a step', '-q'], { env: { DELTA_BASE_URL: llm.baseUrl } });
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  return work;
}

describe("a run's agent version", () => {
  it('is shown by delta show run, compared by delta diff and by delta replay, file by file', async () => {
    const agent = await createTempAgent({ agentYaml, files: { 'step.sh': { content: '#!/bin/sh\necho one\n', mode: 0o755 } } });
    const first = await runIn(agent);
    const same = await runIn(agent);

    const shown = await runDelta(['show', 'run', '-w', first]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toMatch(/^agent version: [0-9a-f]{12} \(4 files\)$/m);
    const verbose = await runDelta(['show', 'run', '-w', first, '-v']);
    expect(verbose.stdout).toMatch(/^ {2}[0-9a-f]{64} {2}step\.sh$/m);
    expect(verbose.stdout).toMatch(/^ {2}[0-9a-f]{64} {2}system_prompt\.md$/m);

    expect((await runDelta(['diff', first, same])).stdout).toContain('agents: the same version\n');

    writeFileSync(join(agent, 'step.sh'), '#!/bin/sh\necho two\n');
    const changed = await runIn(agent);
    const diff = await runDelta(['diff', first, changed]);
    expect(diff.stdout).toContain("agents differ: step.sh changed (A's agent -> B's)\n");
    const json = JSON.parse((await runDelta(['diff', first, changed, '--json'])).stdout);
    expect(json.agentChanges).toEqual({ same: false, changed: ['step.sh'], added: [], removed: [] });

    // Recorded tool results: every request as recorded, and still the agent is not the one the run had.
    const replay = await runDelta(['replay', '-w', first, '--tools', 'recorded', '--into', join(await createTempDir(), 'replay')]);
    expect(replay.stdout).toContain("agent: differs from the recorded run's: step.sh changed\n");
    expect(replay.stdout).toContain('identical:');
    expect(replay.exitCode).toBe(0);
  });
});
