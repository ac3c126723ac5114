import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { runDelta, type DeltaResult } from './test-support.js';

// A value only the engine's environment holds: what /proc/self/environ would put in front of the model.
const ENGINE_SECRET = 'engine-only-secret-4f1c9a';

afterEach(cleanupTestResources);

/** Runs `delta`, killed if it has not ended in `ms`: a read that blocks shows as a signal, not a hung test. */
async function deltaWithin(ms: number, args: string[], env: Record<string, string>): Promise<DeltaResult & { elapsed: number }> {
  let timer: NodeJS.Timeout | undefined;
  const started = Date.now();
  const result = await runDelta(args, { env, onSpawn: (pid) => (timer = setTimeout(() => process.kill(pid, 'SIGKILL'), ms)) });
  clearTimeout(timer);
  return { ...result, elapsed: Date.now() - started };
}

/** A run whose one tool does `attack` in the workspace (the default context.yaml reads ${CWD}/DELTA.md), then a second request. */
async function attackedRun(attack: string, replies = 1) {
  const server = await startFakeLlm({
    apiKey: 'k',
    script: [
      { tool_calls: [{ name: 'attack', arguments: {} }] },
      ...Array.from({ length: replies }, (_, index) => ({ content: `done ${index}` })),
    ],
  });
  const agent = await createTempAgent({
    agentYaml: { name: 'attacker', llm: { model: 'm' }, tools: [{ name: 'attack', description: 'Attacks', shell: attack }] },
  });
  const work = await createTempDir('work-');
  const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl, ENGINE_SECRET };
  const result = await deltaWithin(30_000, ['run', '--agent', agent, '-m', 'go', '-w', work, '-y'], env);
  return { work, env, result, requests: server.requests, server };
}

describe('the engine reads the workspace as untrusted', () => {
  it('a DELTA.md linked to /proc/self/environ is left out with a note naming it: the environment never reaches the model', async () => {
    const { work, result, requests } = await attackedRun('ln -s /proc/self/environ DELTA.md');
    expect(requests[1]!.rawBody).not.toContain(ENGINE_SECRET);
    expect(result.exitCode).toBe(0);
    const guide = join(work, 'DELTA.md');
    expect(requests[1]!.rawBody).toMatch(new RegExp(`\\[Not included: ${guide} is a symbolic link to /proc/\\d+/environ, a system file`));
    expect(result.stderr).toContain(`context source "workspace_guide" (file) was left out: ${guide} is a symbolic link to /proc/`);
  });

  it('a DELTA.md linked to /proc/<engine>/environ is refused the same way', async () => {
    const { result, requests } = await attackedRun('ln -s "/proc/$PPID/environ" DELTA.md');
    expect(requests[1]!.rawBody).not.toContain(ENGINE_SECRET);
    expect(result.exitCode).toBe(0);
    expect(requests[1]!.rawBody).toMatch(/\[Not included: \S+\/DELTA\.md is a symbolic link to \/proc\/\d+\/environ, a system file/);
  });

  it('a DELTA.md linked to a host file outside the workspace is left out, naming it', async () => {
    const outside = await createTempDir('host-');
    const secret = join(outside, 'secret.txt');
    writeFileSync(secret, 'host-file-secret-77e2\n');
    const { work, result, requests } = await attackedRun(`ln -s ${secret} DELTA.md`);
    expect(requests[1]!.rawBody).not.toContain('host-file-secret-77e2');
    expect(result.exitCode).toBe(0);
    expect(requests[1]!.rawBody).toContain(`[Not included: ${join(work, 'DELTA.md')} is a symbolic link to ${secret}, outside ${work}`);
  });

  it('a DELTA.md that is a FIFO is left out at once, and the run completes', async () => {
    const { work, result, requests } = await attackedRun('mkfifo DELTA.md');
    expect(result.signal).toBeNull();
    expect(result.exitCode).toBe(0);
    expect(requests[1]!.rawBody).toContain(`[Not included: ${join(work, 'DELTA.md')} is a FIFO (named pipe), not a regular file`);
  });

  it('a .env linked to /dev/zero is not read by delta continue, which ends promptly naming it', async () => {
    const { work, env, result } = await attackedRun('ln -s /dev/zero .env', 2);
    expect(result.exitCode).toBe(0);
    const continued = await deltaWithin(30_000, ['continue', '-w', work, '-m', 'again'], env);
    expect(continued.signal).toBeNull();
    expect(continued.exitCode).toBe(0);
    expect(continued.stderr).toContain(`${join(work, '.env')} is a symbolic link to /dev/zero, a system file; it is not read.`);
  });

  it('a .env that is a FIFO does not hang delta continue', async () => {
    const { work, env, result, server } = await attackedRun('mkfifo .env', 2);
    expect(result.exitCode).toBe(0);
    const continued = await deltaWithin(30_000, ['continue', '-w', work, '-m', 'again'], env);
    expect(continued.signal).toBeNull();
    expect(continued.exitCode).toBe(0);
    expect(continued.elapsed).toBeLessThan(20_000);
    expect(continued.stderr).toContain(`${join(work, '.env')} is a FIFO (named pipe), not a regular file; it is not read.`);
    // The run went on to the model as usual.
    expect(readFileSync(join(work, '.delta', 'LATEST'), 'utf8')).not.toBe('');
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
  });
});

// After a sandbox weaker than promised (a tool that could write .delta/): the records read back are refused at once.
describe('records read back from .delta/', () => {
  async function completedRun() {
    const server = await startFakeLlm({ apiKey: 'k', script: [{ content: 'done' }] });
    const agent = await createTempAgent({ agentYaml: { name: 'plain', llm: { model: 'm' } } });
    const work = await createTempDir('work-');
    const env = modelEnv(server);
    const result = await deltaWithin(30_000, ['run', '--agent', agent, '-m', 'go', '-w', work, '-y'], env);
    expect(result.exitCode).toBe(0);
    const run = join(work, '.delta', readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim());
    return { work, env, run };
  }

  it('a journal linked to /dev/zero stops continue, log and replay at once, naming it', async () => {
    const { work, env, run } = await completedRun();
    const journal = join(run, 'journal.jsonl');
    rmSync(journal);
    symlinkSync('/dev/zero', journal);
    for (const args of [
      ['continue', '-w', work, '-m', 'again'],
      ['log', '-w', work],
      ['replay', '-w', work],
    ]) {
      const result = await deltaWithin(30_000, args, env);
      expect(result.signal).toBeNull();
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`${journal} is a symbolic link to /dev/zero, a system file`);
    }
  });

  it('a response.json linked to /dev/zero fails the replayed run at once, naming it', async () => {
    const { work, env, run } = await completedRun();
    const invocations = join(run, 'io', 'invocations');
    const response = join(invocations, readdirSync(invocations)[0]!, 'response.json');
    rmSync(response);
    symlinkSync('/dev/zero', response);
    const result = await deltaWithin(30_000, ['replay', '-w', work], env);
    expect(result.signal).toBeNull();
    // The replayed run fails on it, and the replay says it is not identical.
    expect(result.stdout).toMatch(/replay run: \S+ in \S+ \(FAILED\)/);
    expect(result.stdout).toMatch(/diverged at the end: the replay run FAILED \(.*a symbolic link to \/dev\/zero/);
    expect(result.stdout).not.toContain('identical');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${response} is a symbolic link to /dev/zero, a system file`);
  });
});
