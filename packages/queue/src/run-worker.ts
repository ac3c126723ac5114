import { sharedSignal } from '@delta/experiments';
import { Worker } from 'bullmq';
import { BATCH_REGISTRY_KEY } from './enqueue-batch.js';
import { createRunProcessor, type RunProcessorOptions } from './process-run-job.js';
import { type RedisAddress, withoutPassword } from './redis-address.js';
import { REFUSED_HINT, REFUSED_PREFIX } from './verify-run-job.js';
import { storageRoots } from './storage-roots.js';
import { connectRedis, outageReporter } from './redis-connection.js';
import type { RunJobData, RunJobResult } from './run-job.js';

export interface RunWorkerOptions extends Omit<RunProcessorOptions, 'signal' | 'onBatchRefused'> {
  address: RedisAddress;
  /** Runs at a time in this process, per batch (default 1). */
  concurrency?: number;
  /**
   * The longest a job stays with a worker that stopped renewing its lock (killed, its machine lost) before
   * another worker takes it (default 30 s): BullMQ's lock is 2/3 of it and its stall check runs every 1/6.
   */
  lockDurationMs?: number;
  /** How often to look for new batches in the registry (default 2 s). */
  discoverEveryMs?: number;
  /** Stops the worker: runs in flight end INTERRUPTED and go back to the queue, then it returns. */
  signal: AbortSignal;
  /** A line for a person: batches found and left, jobs that failed, Redis outages. */
  log?: (line: string) => void;
}

/**
 * Serves every batch queue registered in the Redis database: one BullMQ Worker per queue, found by
 * polling the registry, each taking `concurrency` runs at a time. Returns once `signal` aborts and the
 * runs in flight have stopped.
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const log = withoutPassword(options.address, options.log ?? (() => {}));
  const roots = storageRoots(options.roots);
  log(`serving batches under ${roots.join(', ')} only`);
  const outages = outageReporter(options.address, log);
  const connection = await connectRedis(options.address, outages);
  const workers = new Map<string, Worker<RunJobData, RunJobResult>>();
  const refused = new Set<string>();
  /** Queues in which a job was refused as not a run of its batch. */
  const forged = new Set<string>();
  const takeover = options.lockDurationMs ?? 30_000;
  // BullMQ hands a job over once its lock has lapsed and a stall check has seen it unlocked twice (the
  // first marks it): a lock of the whole --lock-duration and a check as often took up to twice as long.
  // A lock of 2/3 of it (renewed every 1/3) and a check every 1/6 hand it over within 5/6 of it.
  const lockDuration = Math.max(1, Math.round((takeover * 2) / 3));
  const stalledInterval = Math.max(1, Math.round(takeover / 6));
  // Every job in flight (--concurrency per batch) listens to it: one signal that takes them all.
  const shared = sharedSignal(options.signal);
  const processor = createRunProcessor({
    ...options,
    roots,
    signal: shared.signal ?? options.signal,
    onBatchRefused: (queueName, error) => {
      if (refused.has(queueName)) return;
      refused.add(queueName);
      log(`refusing the batch of queue ${queueName}: ${error.message}`);
      // Not awaited: closing waits for the jobs in flight, this one among them.
      void workers.get(queueName)?.close();
    },
  });
  const serve = (name: string) => {
    const worker = new Worker<RunJobData, RunJobResult>(name, processor, {
      connection,
      concurrency: options.concurrency ?? 1,
      lockDuration,
      stalledInterval,
      // A run whose worker dies twice more still gets a third one: it resumes from its journal each time.
      maxStalledCount: 3,
    });
    worker.on('failed', (job, error) => {
      if (!job) return;
      if (error.message.startsWith(REFUSED_PREFIX)) {
        log(`refused job ${job.id} of ${name}: ${error.message.slice(REFUSED_PREFIX.length)}`);
        // Once per queue: what a refused job means, and the fix.
        if (!forged.has(name)) log(`QUEUE_JOB_REFUSED: ${REFUSED_HINT}`);
        forged.add(name);
      } else log(`job ${job.id} of ${name} failed (attempt ${job.attemptsMade}): ${error.message}`);
    });
    // A Redis outage reaches every queue's worker: said once, with the connection's (see outageReporter).
    worker.on('error', (error) => outages.error(error.message));
    workers.set(name, worker);
    log(`serving queue ${name}`);
  };
  const discover = async () => {
    const names = await connection.smembers(BATCH_REGISTRY_KEY);
    for (const name of names.sort()) if (!workers.has(name) && !refused.has(name)) serve(name);
  };
  try {
    await discover();
    while (!options.signal.aborted) {
      await new Promise<void>((resolve) => {
        // The listener goes with the wait: one added every 2 s and never removed piled up on the signal.
        const done = () => {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, options.discoverEveryMs ?? 2_000);
        options.signal.addEventListener('abort', done, { once: true });
      });
      if (!options.signal.aborted) await discover().catch((error: Error) => outages.error(error.message));
    }
  } finally {
    await Promise.all([...workers.values()].map((worker) => worker.close()));
    connection.disconnect();
  }
}
