import { tmpdir } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, redisUnavailable, startFakeLlm, startTestRedis, modelEnv } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { type RunningDelta, startDelta } from './test-processes.test-support.js';

// One policy for a run whose endpoint keeps failing, in a local batch and through the queue: FAILED after
// the client's retries, once; --max-attempts N resends the request up to N attempts in all, in both.

const unavailable = redisUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: the queued half of the --max-attempts test needs redis-server: ${unavailable}\n`);

const workers: RunningDelta[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await cleanupTempDirs();
});

async function failingBatch() {
  const agent = await createTempAgent({ agentYaml: { name: 'flaky', llm: { model: 'm', max_retries: 0 }, tools: [] } });
  const directory = await createTempDir('attempts-');
  const tasksFile = join(directory, 'tasks.jsonl');
  writeFileSync(tasksFile, `${JSON.stringify({ id: 'only', message: 'hi' })}\n`);
  return { agent, tasksFile, directory };
}

describe('delta batch --max-attempts', () => {
  it('locally: one attempt by default (FAILED, exit 1); with --max-attempts 2 the failed request is sent once more', async () => {
    const llm = await startFakeLlm({ script: () => ({ error: { status: 503, message: 'overloaded' } }) });
    try {
      const { agent, tasksFile, directory } = await failingBatch();
      const env = { env: modelEnv(llm) };
      const once = await runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'a')], env);
      expect(once.exitCode).toBe(1);
      expect(once.stdout).toMatch(/^FAILED +only \/ m \/ 1 /m);
      expect(llm.requests).toHaveLength(1);
      const twice = await runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'b'), '--max-attempts', '2'], env);
      expect(twice.exitCode).toBe(1);
      expect(llm.requests).toHaveLength(3);
      expect(llm.requests[2]!.body).toEqual(llm.requests[1]!.body);
      const bad = await runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'c'), '--max-attempts', '0'], env);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain('--max-attempts must be a whole number of at least 1, got "0".');
    } finally {
      await llm.close();
    }
  });

  it('without a key or an endpoint stops before any run, exit 2, saying what to set', async () => {
    const { agent, tasksFile, directory } = await failingBatch();
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'nokey')], {
      env: { DELTA_API_KEY: '', OPENAI_API_KEY: '', DELTA_BASE_URL: '' },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Error: No API key for the model: DELTA_API_KEY (or OPENAI_API_KEY) is missing or empty.');
    expect(result.stderr).toContain('Hint: Set DELTA_API_KEY');
    expect(result.stdout).not.toContain('only');
  });

  it.skipIf(unavailable)("through the queue: the same one attempt by default, not the queue's own retries", async () => {
    const llm = await startFakeLlm({ script: () => ({ error: { status: 503, message: 'overloaded' } }) });
    const redis = await startTestRedis();
    try {
      const { agent, tasksFile, directory } = await failingBatch();
      const env = modelEnv(llm);
      const batch = startDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'q'), '--queue', redis.url, '--wait'], env);
      workers.push(startDelta(['worker', '--queue', redis.url, '--root', tmpdir()], env));
      const finished = await batch.done;
      expect(finished.stdout).toContain('1 run: 0 completed, 1 failed');
      expect(finished.exitCode).toBe(1);
      expect(llm.requests).toHaveLength(1);
    } finally {
      await llm.close();
      await redis.stop();
    }
  });
});
