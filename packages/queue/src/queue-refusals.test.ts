import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { batchIdentityFile } from './batch-identity.js';
import { connectRedis, enqueueBatch, parseRedisAddress, runWorker } from './index.js';
import { checkBatchIdentity, claimBatchIdentity } from './batch-identity.js';
import { placeMismatch } from './verify-run-job.js';
import { redis, smallBatch, startRedis, stopRedis, unavailable } from './queue.test-support.js';

beforeAll(startRedis);
afterAll(stopRedis);
afterEach(() => cleanupTempDirs());

describe('shared storage', () => {
  it('refuses a directory that is missing here or holds another batch, and creates nothing', async () => {
    const out = join(await createTempDir(), 'out');
    const batch = await smallBatch(out);
    const identity = claimBatchIdentity(batch.out);
    expect(claimBatchIdentity(batch.out)).toEqual(identity);
    expect(identity).toMatchObject({ out: batch.out, queue: expect.stringMatching(/^delta-out-[0-9a-f]{8}$/) });
    expect(() => checkBatchIdentity(batch.out, identity.batch_id)).not.toThrow();

    expect(() => checkBatchIdentity(batch.out, 'another-batch')).toThrow(
      expect.objectContaining({ code: 'BATCH_NOT_SHARED', message: expect.stringContaining(`holds another batch (${identity.batch_id})`) }),
    );
    const missing = join(out, '..', 'not-mounted');
    expect(() => checkBatchIdentity(missing, identity.batch_id)).toThrow(
      expect.objectContaining({
        code: 'BATCH_NOT_SHARED',
        message: expect.stringContaining('the directory does not exist here'),
        hint: expect.stringContaining('Mount the storage'),
      }),
    );
    expect(existsSync(missing)).toBe(false);
    rmSync(batchIdentityFile(batch.out));
    expect(() => checkBatchIdentity(batch.out, identity.batch_id)).toThrow(expect.objectContaining({ code: 'BATCH_NOT_SHARED' }));
  });

  it.skipIf(unavailable)('a worker that cannot see the batch refuses its job, puts it back, and writes nothing', async () => {
    const out = join(await createTempDir(), 'out');
    const batch = await smallBatch(out);
    const address = parseRedisAddress(redis.url);
    const { identity, added } = await enqueueBatch(batch, address, { backoffMs: 60_000 });
    expect(added).toBe(2);
    // This machine "lost" the mount: the path holds an empty directory now.
    renameSync(out, `${out}-real`);
    mkdirSync(out);
    const logs: string[] = [];
    const controller = new AbortController();
    let refused: () => void = () => {};
    const refusal = new Promise<void>((resolve) => {
      refused = resolve;
    });
    const worker = runWorker({
      address,
      roots: [tmpdir()],
      signal: controller.signal,
      log: (line) => {
        logs.push(line);
        if (line.startsWith('refusing the batch')) refused();
      },
    });
    await refusal;
    const connection = await connectRedis(address);
    const queue = new Queue(identity.queue, { connection });
    // The job failed its attempt with the reason, and waits (delayed) for another worker.
    let job = await queue.getJob('a/fake-model/1');
    while ((await job!.getState()) === 'active') job = await queue.getJob('a/fake-model/1');
    expect(await job!.getState()).toBe('delayed');
    expect(job!.failedReason).toContain(`cannot see the batch ${identity.batch_id} at ${out}`);
    expect(logs.join('\n')).toContain('Mount the storage that holds the batch');
    expect(readdirSync(out)).toEqual([]);
    controller.abort();
    await worker;
    await queue.close();
    connection.disconnect();
  });
});

describe('a job is a claim', () => {
  it('a job naming another batch than the one its queue was found to hold is refused without touching a file', async () => {
    const out = join(await createTempDir(), 'out');
    const batch = await smallBatch(out);
    const identity = claimBatchIdentity(batch.out);
    const job = { id: 'a/fake-model/1', name: 'run', queueName: identity.queue };
    const data = { out: batch.out, batch_id: identity.batch_id, task: 'a', model: 'fake-model', repeat: 1, retry_failed: false };
    expect(placeMismatch(job, data, undefined)).toBeUndefined();
    expect(placeMismatch(job, data, { out: batch.out, batch_id: identity.batch_id })).toBeUndefined();
    // The same name and batch id, elsewhere: fits the queue's name, but not the batch this worker has served from it.
    const elsewhere = join(out, '..', 'other', 'out');
    expect(placeMismatch(job, { ...data, out: elsewhere }, undefined)).toBeUndefined();
    expect(placeMismatch(job, { ...data, out: elsewhere }, { out: batch.out, batch_id: identity.batch_id })).toBe(
      `its out is ${elsewhere}, but the batch of this queue is at ${batch.out}`,
    );
    expect(placeMismatch({ ...job, name: 'evil' }, data, undefined)).toContain('its name is "evil"');
    expect(placeMismatch(job, { ...data, batch_id: 'another' }, undefined)).toContain(`not ${identity.queue}`);
    expect(existsSync(elsewhere)).toBe(false);
  });
});

describe.skipIf(unavailable)('a batch a tool could have made', () => {
  it('a whole batch, signed and queued, inside another batch directory (where runs write) is refused job by job', async () => {
    const out = join(await createTempDir(), 'out');
    await smallBatch(out);
    // What a tool of run a/fake-model/1 could write in its workspace, and queue given the Redis password.
    const inner = join(out, 'a', 'fake-model', '1', 'evil');
    const forged = await smallBatch(inner);
    const address = parseRedisAddress(redis.url);
    const { identity } = await enqueueBatch(forged, address, { backoffMs: 100 });
    const connection = await connectRedis(address);
    const queue = new Queue(identity.queue, { connection });
    const logs: string[] = [];
    const controller = new AbortController();
    const worker = runWorker({ address, roots: [tmpdir()], signal: controller.signal, log: (line) => logs.push(line) });
    await expect
      .poll(async () => (await queue.getJobCounts('failed')).failed ?? 0, { timeout: 60_000, interval: 50 })
      .toBeGreaterThanOrEqual(2);
    controller.abort();
    await worker;
    for (const jobId of ['a/fake-model/1', 'b/fake-model/1']) {
      const job = (await queue.getJob(jobId))!;
      expect(job.attemptsMade, jobId).toBe(1);
      expect(job.failedReason, jobId).toBe(
        `refused: its out ${inner} lies inside the batch directory ${out}, where runs' tools write; it is not a run of the batch, and was not run (on ${hostname()}, pid ${process.pid}).`,
      );
      expect(logs.join('\n')).toContain(`refused job ${jobId} of ${identity.queue}: its out ${inner} lies inside`);
    }
    expect(logs.filter((line) => line.startsWith('QUEUE_JOB_REFUSED: Only `delta batch --queue` makes jobs'))).toHaveLength(1);
    expect(readdirSync(inner).sort()).toEqual(['.batch']);
    await queue.close();
    connection.disconnect();
  });
});
