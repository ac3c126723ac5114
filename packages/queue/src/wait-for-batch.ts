import { Queue } from 'bullmq';
import { codedReason } from './job-failure.js';
import type { RedisAddress } from './redis-address.js';
import { connectRedis } from './redis-connection.js';
import { REFUSED_PREFIX } from './verify-run-job.js';

/** The queue's job counts as `delta batch --queue --wait` shows them. */
export interface QueueProgress {
  waiting: number;
  active: number;
  /** Waiting to be retried after a failed attempt. */
  delayed: number;
  completed: number;
  failed: number;
}

export interface FailedRunJob {
  id: string;
  /** The error code the job failed with (QUEUE_JOB_REFUSED for a refused one), when it had one. */
  code?: string;
  reason: string;
  attempts: number;
  /** Refused by a worker as not a run of the batch (a forged job): the batch's runs are not affected. */
  refused: boolean;
}

export interface WaitForBatchOptions {
  /** Called after every look at the queue. */
  onProgress?: (progress: QueueProgress) => void;
  intervalMs?: number;
  signal?: AbortSignal;
}

/**
 * Follows a batch's queue until no job is pending (waiting, running or waiting for a retry), reading the
 * counts from Redis; returns the jobs that failed for good, with BullMQ's reason (and whether a worker
 * refused the job as not a run of the batch). Returns early when
 * `signal` aborts (the runs go on, on the workers).
 */
export async function waitForBatch(address: RedisAddress, queueName: string, options: WaitForBatchOptions = {}): Promise<FailedRunJob[]> {
  const connection = await connectRedis(address);
  const queue = new Queue(queueName, { connection });
  try {
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed');
      const progress: QueueProgress = {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts['waiting-children'] ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        completed: counts.completed ?? 0,
        failed: counts.failed ?? 0,
      };
      options.onProgress?.(progress);
      if (progress.waiting + progress.active + progress.delayed === 0 || options.signal?.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1_000));
    }
    const failed = await queue.getJobs(['failed']);
    return failed.map((job) => {
      const refused = job.failedReason.startsWith(REFUSED_PREFIX);
      const { code, reason } = refused
        ? { code: 'QUEUE_JOB_REFUSED', reason: job.failedReason.slice(REFUSED_PREFIX.length) }
        : codedReason(job.failedReason);
      return { id: String(job.id), ...(code === undefined ? {} : { code }), reason, attempts: job.attemptsMade, refused };
    });
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
