import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { prepareBatch } from '@delta/experiments';
import { readMetadata, runPaths } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  redisUnavailable,
  type FakeLlm,
  startFakeLlm,
  startTestRedis,
  type TestRedis,
} from '@delta/testkit';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { batchIdentityFile } from './batch-identity.js';
import {
  checkBatchIdentity,
  claimBatchIdentity,
  connectRedis,
  enqueueBatch,
  hidePassword,
  parseRedisAddress,
  runWorker,
  type RunWorkerOptions,
  withoutPassword,
} from './index.js';
import { placeMismatch } from './verify-run-job.js';
import { outageReporter } from './redis-connection.js';

const unavailable = redisUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: the @delta/queue tests need redis-server: ${unavailable}\n`);

let redis: TestRedis;
beforeAll(async () => {
  if (!unavailable) redis = await startTestRedis();
});
afterAll(async () => redis?.stop());
afterEach(() => cleanupTempDirs());

async function smallBatch(out: string) {
  const agent = await createTempAgent({ agentYaml: { name: 'q', llm: { model: 'fake-model' }, tools: [] } });
  const tasks = join(await createTempDir(), 'tasks.jsonl');
  writeFileSync(tasks, `${JSON.stringify({ id: 'a', message: 'hi' })}\n${JSON.stringify({ id: 'b', message: 'ho' })}\n`);
  const batch = prepareBatch({ tasksFile: tasks, agent, out });
  // Recorded, as by `delta batch --queue`, which holds OUT's batch lock only while it records and enqueues.
  batch.release();
  return batch;
}

describe('the Redis URL', () => {
  it('parses redis://HOST:PORT/DB and never shows a password', () => {
    expect(parseRedisAddress('redis://u:secret@10.0.0.5:6380/2')).toMatchObject({
      host: '10.0.0.5',
      port: 6380,
      db: 2,
      username: 'u',
      password: 'secret',
      tls: false,
      shown: 'redis://u:***@10.0.0.5:6380/2',
    });
    expect(parseRedisAddress('redis://localhost').shown).toBe('redis://localhost/0');
    for (const [text, problem] of [
      ['localhost:6379', 'the scheme is localhost:'],
      ['http://h:1/0', 'the scheme is http:'],
      ['redis://h:1/x', 'the database "x" is not a number'],
      ['not a url', 'it does not parse as a URL'],
    ] as const) {
      expect(() => parseRedisAddress(text)).toThrow(
        expect.objectContaining({
          code: 'USAGE',
          message: expect.stringContaining(problem),
          hint: expect.stringContaining('redis://HOST:PORT/DB'),
        }),
      );
    }
  });

  it.skipIf(unavailable)('names the URL and how to start a server when nothing answers there', async () => {
    const address = parseRedisAddress(`redis://127.0.0.1:${redis.port + 1 === 65536 ? 1 : redis.port + 1}/0`);
    const error = await connectRedis(address).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'QUEUE_UNREACHABLE',
      message: expect.stringContaining(`Cannot reach Redis at ${address.shown}`),
      hint: expect.stringContaining(`redis-server --port ${address.port}`),
    });
    // The real cause, not ioredis's "Connection is closed.", and one full stop.
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).message).not.toContain('..');
  });

  it.skipIf(unavailable)('refuses a database the server does not have, instead of going on in database 0', async () => {
    const address = parseRedisAddress(`redis://127.0.0.1:${redis.port}/99`);
    const error = await connectRedis(address).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'USAGE',
      message: `Redis at ${address.shown} has no database 99.`,
      hint: expect.stringContaining('16 by default'),
    });
    const fine = await connectRedis(parseRedisAddress(`redis://127.0.0.1:${redis.port}/15`));
    fine.disconnect();
  });

  it('never shows a password: not in a URL that does not parse, not in a line a server or a library says', () => {
    for (const text of ['redis://:pa@ss@10.0.0.5:6379/x', 'redis://u:pa/ss@h/0', 'redis://:pa@ss@h:99999/0']) {
      const error = (() => {
        try {
          parseRedisAddress(text);
        } catch (caught) {
          return caught as Error;
        }
        return undefined;
      })();
      expect(error, text).toBeDefined();
      expect(error!.message, text).not.toContain('pa@ss');
      expect(error!.message, text).not.toContain('pa/ss');
      expect(error!.message, text).toContain(':***@');
    }
    expect(hidePassword('redis://user:secret@h:1/0')).toBe('redis://user:***@h:1/0');
    expect(hidePassword('redis://h:1/0')).toBe('redis://h:1/0');
    const lines: string[] = [];
    const log = withoutPassword(parseRedisAddress('redis://:s%40cret@h:1/0'), (line) => lines.push(line));
    log('AUTH s@cret failed; the URL had s%40cret');
    expect(lines).toEqual(['AUTH *** failed; the URL had ***']);
  });

  it.skipIf(unavailable)(
    'a server with a password: a URL without it, or with a wrong one, is refused by name and the password is not shown',
    async () => {
      const guarded = await startTestRedis({ password: 'right-one' });
      try {
        const url = new URL(guarded.url);
        const without = await connectRedis(parseRedisAddress(`redis://127.0.0.1:${guarded.port}/0`)).catch((caught: unknown) => caught);
        expect(without).toMatchObject({
          code: 'USAGE',
          message: expect.stringContaining('requires authentication: no password was given'),
        });
        const wrong = await connectRedis(parseRedisAddress(`redis://:wrong-one@127.0.0.1:${guarded.port}/0`)).catch(
          (caught: unknown) => caught,
        );
        expect(wrong).toMatchObject({ code: 'USAGE', message: expect.stringContaining('the password was refused') });
        expect((wrong as Error).message).not.toContain('wrong-one');
        expect((wrong as { hint: string }).hint).toContain('redis://:PASSWORD@HOST:PORT/DB');
        const right = await connectRedis(parseRedisAddress(guarded.url));
        expect(await right.ping()).toBe('PONG');
        right.disconnect();
        expect(url.password).toBe('right-one');
      } finally {
        await guarded.stop();
      }
    },
  );

  it('says an outage once, however many attempts and queues report it, and says when it is over', () => {
    const lines: string[] = [];
    const outages = outageReporter(parseRedisAddress('redis://10.0.0.5:6379/1'), (line) => lines.push(line));
    outages.ready();
    for (let attempt = 0; attempt < 5; attempt += 1) outages.error('connect ECONNREFUSED 10.0.0.5:6379');
    outages.ready();
    outages.ready();
    expect(lines).toEqual([
      'Redis at redis://10.0.0.5:6379/1: connect ECONNREFUSED 10.0.0.5:6379 (reconnecting)',
      'Redis at redis://10.0.0.5:6379/1: connected again',
    ]);
  });
});

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
    const worker = runWorker({ address, signal: controller.signal, log: (line) => logs.push(line) });
    while (((await queue.getJobCounts('failed')).failed ?? 0) < 2) await new Promise((resolve) => setTimeout(resolve, 50));
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

describe.skipIf(unavailable)('attempts', () => {
  /** Runs a worker in this process until `done` says the queue is where the test wants it. */
  async function workUntil(options: Omit<RunWorkerOptions, 'signal'>, done: () => Promise<boolean>) {
    const controller = new AbortController();
    const worker = runWorker({ ...options, signal: controller.signal });
    while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 50));
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
      { address, engine: { apiKey: 'k', baseUrl: llm.baseUrl } },
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
    await workUntil({ address, engine: { environment: {} } }, async () => (await queue.getJobCounts('failed')).failed === 2);
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
      await runWorker({ address, engine, signal: second.signal, onRunEnd: () => second.abort() });
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
