import { mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, enqueueBatch, parseRedisAddress, runWorker, waitForBatch } from './index.js';
import { redis, smallBatch, startRedis, stopRedis, unavailable } from './queue.test-support.js';

beforeAll(startRedis);
afterAll(stopRedis);
afterEach(() => cleanupTempDirs());

// BullMQ keeps only a failed job's message: the error's code must come through it, for `delta batch --wait`.
describe.skipIf(unavailable)("a job's error code survives the queue", () => {
  it('a configuration error that failed the job for good comes back from Redis with its code', async () => {
    const batch = await smallBatch(join(await createTempDir(), 'out'));
    const address = parseRedisAddress(redis.url);
    const { identity } = await enqueueBatch(batch, address, { backoffMs: 100 });
    const connection = await connectRedis(address);
    const queue = new Queue(identity.queue, { connection });
    const controller = new AbortController();
    // No model key anywhere in the worker's environment.
    const worker = runWorker({ address, roots: [tmpdir()], engine: { environment: {} }, signal: controller.signal });
    await expect.poll(async () => (await queue.getJobCounts('failed')).failed, { timeout: 60_000, interval: 50 }).toBe(2);
    controller.abort();
    await worker;
    const failed = await waitForBatch(address, identity.queue);
    expect(failed.map((job) => [job.id, job.code, job.refused]).sort()).toEqual([
      ['a/fake-model/1', 'API_KEY_MISSING', false],
      ['b/fake-model/1', 'API_KEY_MISSING', false],
    ]);
    expect(failed[0]!.reason).toMatch(/^No API key/);
    await queue.close();
    connection.disconnect();
  });

  it('a worker that cannot see the batch fails the attempt with BATCH_NOT_SHARED', async () => {
    const out = join(await createTempDir(), 'out');
    const batch = await smallBatch(out);
    const address = parseRedisAddress(redis.url);
    const { identity } = await enqueueBatch(batch, address, { backoffMs: 60_000 });
    // This machine "lost" the mount: the path holds an empty directory now.
    renameSync(out, `${out}-real`);
    mkdirSync(out);
    const logs: string[] = [];
    const controller = new AbortController();
    const worker = runWorker({ address, roots: [tmpdir()], signal: controller.signal, log: (line) => logs.push(line) });
    const connection = await connectRedis(address);
    const queue = new Queue(identity.queue, { connection });
    await expect
      .poll(async () => (await queue.getJob('a/fake-model/1'))?.failedReason ?? '', { timeout: 60_000, interval: 50 })
      .toMatch(/^BATCH_NOT_SHARED: .*cannot see the batch/);
    controller.abort();
    await worker;
    expect(logs.find((line) => line.startsWith('refusing the batch'))).toContain(': BATCH_NOT_SHARED: ');
    await queue.close();
    connection.disconnect();
  });
});
