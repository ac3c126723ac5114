import { conditionKeys, DEFAULT_MAX_ATTEMPTS, type OpenedBatch, REATTEMPT_DELAY_MS } from '@delta/experiments';
import { Queue } from 'bullmq';
import { type BatchIdentity, claimBatchIdentity } from './batch-identity.js';
import { claimBatchKey, signRunJob } from './batch-key.js';
import type { RedisAddress } from './redis-address.js';
import { connectRedis } from './redis-connection.js';
import { RUN_JOB_NAME, type RunJobData, runJobId } from './run-job.js';

/** Job attempts beyond the run's own, for workers stopped in the middle of a run (it is left INTERRUPTED). */
const STOPPED_WORKER_ATTEMPTS = 4;

/** The Redis set of every batch queue in the database: what `delta worker` serves. */
export const BATCH_REGISTRY_KEY = 'delta:batches';

export interface EnqueueOptions {
  /** Run FAILED runs again (`--retry-failed`). */
  retryFailed?: boolean;
  /**
   * Attempts of a run in all when its endpoint fails transiently (`--max-attempts`, default 1), as in a local
   * batch. The job itself gets four more, for a worker stopped in the middle of the run.
   */
  maxAttempts?: number;
  /** The first re-attempt's delay, doubled for each later one (default 5 s, as in a local batch). */
  backoffMs?: number;
}

export interface EnqueueResult {
  identity: BatchIdentity;
  /** Every run of the batch. */
  runs: number;
  /** Jobs added now; the others were still waiting or running from an earlier command. */
  added: number;
}

const PENDING = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/**
 * Puts every run of the batch in its queue, one job per run (its id the run's key, signed with the
 * batch's key from OUT/.batch/queue.key, which this creates and Redis never sees), and registers the
 * queue for workers. A job still pending from an earlier command is left; one that has finished is
 * replaced, so that the same command again sends each run once more to `executeBatchRun`, which decides
 * from the run's journal what is left to do (a completed run is left as it is).
 */
export async function enqueueBatch(batch: OpenedBatch, address: RedisAddress, options: EnqueueOptions = {}): Promise<EnqueueResult> {
  const identity = claimBatchIdentity(batch.out);
  const key = claimBatchKey(batch.out);
  const connection = await connectRedis(address);
  const queue = new Queue<RunJobData, unknown, string>(identity.queue, { connection });
  try {
    await connection.sadd(BATCH_REGISTRY_KEY, identity.queue);
    // This command's condition only: another agent version's runs are never run with this one.
    const runs = conditionKeys(batch);
    const jobs = [];
    for (const run of runs) {
      const model = batch.definition.models.find((candidate) => candidate.name === run.model)!;
      const jobId = runJobId(run.task, model.directory, run.repeat);
      const existing = await queue.getJob(jobId);
      if (existing) {
        if (PENDING.has(await existing.getState())) continue;
        await existing.remove();
      }
      const fields = {
        out: batch.out,
        batch_id: identity.batch_id,
        task: run.task,
        model: run.model,
        repeat: run.repeat,
        retry_failed: options.retryFailed === true,
        max_attempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      };
      jobs.push({
        name: RUN_JOB_NAME,
        data: { ...fields, signature: signRunJob(key, fields) },
        opts: {
          jobId,
          attempts: (options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS) + STOPPED_WORKER_ATTEMPTS,
          backoff: { type: 'exponential', delay: options.backoffMs ?? REATTEMPT_DELAY_MS },
        },
      });
    }
    // In slices: one round trip per slice, not per run, and no single command of unbounded size.
    for (let start = 0; start < jobs.length; start += 500) await queue.addBulk(jobs.slice(start, start + 500));
    return { identity, runs: runs.length, added: jobs.length };
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
