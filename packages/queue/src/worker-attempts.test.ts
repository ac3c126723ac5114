import { tmpdir } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareBatch } from '@delta/experiments';
import { readMetadata, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, enqueueBatch, parseRedisAddress, runWorker, type RunWorkerOptions } from './index.js';
import { redis, smallBatch, startRedis, stopRedis, unavailable } from './queue.test-support.js';

beforeAll(startRedis);
afterAll(stopRedis);
afterEach(() => cleanupTempDirs());

describe.skipIf(unavailable)('attempts', () => {
  /** Runs a worker in this process until `done` says the queue is where the test wants it. */
  async function workUntil(options: Omit<RunWorkerOptions, 'signal'>, done: () => Promise<boolean>) {
    const controller = new AbortController();
    const worker = runWorker({ ...options, signal: controller.signal });
    await expect.poll(done, { timeout: 60_000, interval: 50 }).toBe(true);
    controller.abort();
    await worker;
  }

  /** A batch of one task, enqueued (with `maxAttempts` when given) and worked until its job has finished. */
  async function oneRunThroughTheQueue(llm: FakeLlm, maxAttempts?: number) {
    const agent = await createTempAgent({ agentYaml: { name: 'q', llm: { model: 'fake-model', max_retries: 0 }, tools: [] } });
    const tasks = join(await createTempDir(), 'tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 'a', message: 'hi' })}\n`);
    const batch = prepareBatch({ tasksFile: tasks, agent, out: join(await createTempDir(), 'out') });
    batch.release();
    const address = parseRedisAddress(redis.url);
    const { identity } = await enqueueBatch(batch, address, { backoffMs: 100, ...(maxAttempts === undefined ? {} : { maxAttempts }) });
    const connection = await connectRedis(address);
    const queue = new Queue(identity.queue, { connection });
    await workUntil(
      { address, roots: [tmpdir()], engine: { apiKey: 'k', baseUrl: llm.baseUrl } },
      async () => (await queue.getJob('a/fake-model/1'))?.finishedOn !== undefined,
    );
    return { batch, job: (await queue.getJob('a/fake-model/1'))!, queue, connection };
  }

  it('with --max-attempts 2, retries a run FAILED by a transient endpoint fault, with backoff, and continues it with the same request', async () => {
    let calls = 0;
    const llm = await startFakeLlm({ script: () => (++calls === 1 ? { error: { status: 503, message: 'busy' } } : { content: 'fine' }) });
    try {
      const { batch, job, queue, connection } = await oneRunThroughTheQueue(llm, 2);
      expect(await job.getState()).toBe('completed');
      expect(job.attemptsMade).toBe(2);
      expect(job.returnvalue).toMatchObject({ status: 'COMPLETED', action: 'retried', run_id: 'run-1' });
      // The second attempt sent the failed request again: one run, completed.
      expect(readMetadata(runPaths(join(batch.out, 'a', 'fake-model', '1'), 'run-1').metadata).status).toBe('COMPLETED');
      expect(llm.requests).toHaveLength(2);
      expect(llm.requests[1]!.body).toEqual(llm.requests[0]!.body);
      await queue.close();
      connection.disconnect();
    } finally {
      await llm.close();
    }
  });

  it('by default leaves a run FAILED by a transient endpoint fault FAILED, as a local batch does: one attempt, one request', async () => {
    const llm = await startFakeLlm({ script: () => ({ error: { status: 503, message: 'busy' } }) });
    try {
      const { job, queue, connection } = await oneRunThroughTheQueue(llm);
      expect(job.attemptsMade).toBe(1);
      expect(job.returnvalue).toMatchObject({ status: 'FAILED', action: 'started', run_id: 'run-1' });
      expect(llm.requests).toHaveLength(1);
      await queue.close();
      connection.disconnect();
    } finally {
      await llm.close();
    }
  });

  it('does not retry a configuration error: the job fails at once with the error and its fix', async () => {
    const out = join(await createTempDir(), 'out');
    const batch = await smallBatch(out);
    const address = parseRedisAddress(redis.url);
    const { identity } = await enqueueBatch(batch, address, { backoffMs: 100 });
    const connection = await connectRedis(address);
    const queue = new Queue(identity.queue, { connection });
    // No model key anywhere in the worker's environment.
    await workUntil(
      { address, roots: [tmpdir()], engine: { environment: {} } },
      async () => (await queue.getJobCounts('failed')).failed === 2,
    );
    const job = (await queue.getJob('a/fake-model/1'))!;
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/API key/i);
    await queue.close();
    connection.disconnect();
  });
});

describe.skipIf(unavailable)('a worker restart', () => {
  it('leaves the queue in Redis: a worker stopped after one run, another started later, finishes the rest', async () => {
    const llm = await startFakeLlm({ script: () => ({ content: 'fine', delay_ms: 50 }) });
    try {
      const out = join(await createTempDir(), 'out');
      const batch = await smallBatch(out);
      const address = parseRedisAddress(redis.url);
      const { identity } = await enqueueBatch(batch, address, { backoffMs: 100 });
      const connection = await connectRedis(address);
      const queue = new Queue(identity.queue, { connection });
      const engine = { apiKey: 'k', baseUrl: llm.baseUrl };
      // The first worker stops (as on SIGTERM) once one run has ended.
      const first = new AbortController();
      const ended: string[] = [];
      await runWorker({
        address,
        roots: [tmpdir()],
        engine,
        signal: first.signal,
        onRunEnd: (outcome) => {
          ended.push(outcome.key.task);
          first.abort();
        },
      });
      expect(ended).toHaveLength(1);
      const counts = await queue.getJobCounts('completed', 'waiting', 'delayed', 'active');
      expect(counts.completed).toBe(1);
      expect((counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0)).toBe(1);
      // A new worker, later: the other run is still in the queue, and it finishes.
      const second = new AbortController();
      await runWorker({ address, roots: [tmpdir()], engine, signal: second.signal, onRunEnd: () => second.abort() });
      expect((await queue.getJobCounts('completed')).completed).toBe(2);
      for (const task of ['a', 'b'])
        expect(readMetadata(runPaths(join(out, task, 'fake-model', '1'), 'run-1').metadata).status).toBe('COMPLETED');
      await queue.close();
      connection.disconnect();
    } finally {
      await llm.close();
    }
  });
});
