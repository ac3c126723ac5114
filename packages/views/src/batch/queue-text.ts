/** The job counts of a batch's queue, as `@delta/queue`'s waitForBatch reports them. */
interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
}

/** A job that failed for good (or that a worker refused as not a run of the batch). */
interface FailedJob {
  id: string;
  reason: string;
  attempts: number;
  refused: boolean;
  /** The DeltaError code the run's failure had, when the worker's reason starts with one. */
  code?: string;
}

/** `delta batch --queue --wait`: one line of progress over the batch's `runs`, never "8/4 ended". */
export function queueProgressLine(progress: QueueCounts, runs: number): string {
  // Jobs that are not the batch's (refused ones) count too.
  const ended = progress.completed + progress.failed;
  const jobs = Math.max(runs, ended + progress.active + progress.waiting + progress.delayed);
  return `${ended}/${jobs} ended · ${progress.active} running · ${progress.waiting} waiting · ${progress.delayed} to retry · ${progress.failed} failed in the queue`;
}

/**
 * `delta batch --queue --wait`'s closing lines: each job that failed, each refused (said apart: it was not a
 * run of this batch), then the runs' statuses as their journals say. `counts` holds the runs of each status,
 * `RUNNING` those that did not finish and `none` those never started.
 */
export function queueEndText(
  batch: { out: string; queue: string; runs: number },
  counts: Record<'COMPLETED' | 'FAILED' | 'INTERRUPTED' | 'WAITING_FOR_INPUT' | 'RUNNING' | 'none', number>,
  failedJobs: readonly FailedJob[],
): { stderr: string; stdout: string } {
  const refused = failedJobs.filter((job) => job.refused);
  const failed = failedJobs.filter((job) => !job.refused);
  const lines = [
    ...failed.map((job) => `FAILED JOB ${job.id} after ${job.attempts} attempts: ${job.reason}${job.code ? ` (${job.code})` : ''}\n`),
    ...refused.map((job) => `REFUSED JOB ${job.id}: ${job.reason}\n`),
  ];
  if (refused.length > 0) {
    lines.push(
      `${refused.length} job${refused.length === 1 ? '' : 's'} in queue ${batch.queue} did not come from this batch and were refused: someone else can write to this Redis (give it a password: docs/scale-out.md).\n`,
    );
  }
  const summary = `${batch.runs} run${batch.runs === 1 ? '' : 's'}: ${counts.COMPLETED} completed, ${counts.FAILED} failed, ${counts.INTERRUPTED} interrupted, ${counts.WAITING_FOR_INPUT} waiting for input, ${counts.RUNNING + counts.none} not finished (${failed.length} jobs failed in the queue${refused.length > 0 ? `, ${refused.length} refused` : ''})`;
  return { stderr: lines.join(''), stdout: `${summary}\nReport: delta report ${batch.out}\n` };
}
