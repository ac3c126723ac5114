import { join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

// delta diff says when two runs of the same agent were made with another model, endpoint or parameters,
// not only when the agent's files differ.

let servers: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  await cleanupTempDirs();
});

async function server(): Promise<FakeLlm> {
  const started = await startFakeLlm({ script: () => ({ content: 'Hello.' }) });
  servers.push(started);
  return started;
}

describe('delta diff: settings', () => {
  it('names a different model, endpoint and llm parameter, in text and --json, and says so when they are the same', async () => {
    const [first, second] = [await server(), await server()];
    const agent = await createTempAgent({ agentYaml: { name: 'greeter', llm: { model: 'model-a', temperature: 0 } } });
    const home = await createTempDir('work-');
    const run = async (name: string, args: string[], llm: FakeLlm) => {
      const result = await runDelta(['run', '--agent', agent, '-w', join(home, name), '-m', 'Say hello', '-q', ...args], {
        env: { DELTA_BASE_URL: llm.baseUrl },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      return join(home, name);
    };
    const a = await run('a', [], first);
    const same = await run('same', [], first);
    const b = await run('b', ['--model', 'model-b', '--set', 'llm.temperature=0.7', '--set', 'llm.seed=7'], second);

    const unchanged = await runDelta(['diff', a, same]);
    expect(unchanged.exitCode).toBe(0);
    expect(unchanged.stdout).toContain('settings: the same model, endpoint and parameters');

    const changed = await runDelta(['diff', a, b]);
    // The conversations are the same: the runs differ in how they were made, which does not count as a difference.
    expect(changed.exitCode).toBe(0);
    expect(changed.stdout).toContain('agents: the same version');
    expect(changed.stdout).toContain(
      `settings differ: model "model-a" (A) -> "model-b" (B); endpoint "${first.baseUrl}" (A) -> "${second.baseUrl}" (B); llm.seed (none) (A) -> 7 (B); llm.temperature 0 (A) -> 0.7 (B)`,
    );
    const json = JSON.parse((await runDelta(['diff', a, b, '--json'])).stdout);
    expect(json.settingsChanges).toEqual([
      { field: 'llm.model', a: '"model-a"', b: '"model-b"' },
      { field: 'base_url', a: JSON.stringify(first.baseUrl), b: JSON.stringify(second.baseUrl) },
      { field: 'llm.seed', a: null, b: '7' },
      { field: 'llm.temperature', a: '0', b: '0.7' },
    ]);
  });
});
