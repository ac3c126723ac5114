import { type BatchSpec, conditionKeys, pinBatchImages, prepareBatch, readRunOnDisk, runDirectoryOf } from '@delta/experiments';
import { imageCacheOption } from '../sandbox-flags.js';
import { printConfigWarning } from '../config-warnings.js';
import { abortOnSignals } from '../signals.js';
import { usageError } from '../usage-error.js';
import { loadOptional, SCALE_OUT } from '../optional-packages.js';

export interface QueueBatchFlags {
  queue: string;
  wait?: boolean;
  retryFailed?: boolean;
  maxAttempts?: number;
  json?: boolean;
  /** Flags that only mean something to runs in this process. */
  local: Record<string, unknown>;
}

/** The flags of a local batch that a queued one cannot honour, with where to say it instead. */
const LOCAL_ONLY: Record<string, string> = {
  concurrency: 'give --concurrency to each delta worker',
  baseUrl: 'workers read their own DELTA_BASE_URL or .env (or delta worker --base-url)',
  maxIterations: 'use --set max_iterations=N, which the batch records',
  retries: 'use --set llm.max_retries=N, which the batch records',
  maxCost: 'it applies to runs in this process only',
  timeout: 'it applies to runs in this process only',
};

function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * `delta batch … --queue URL [--wait]`: records the batch in OUT as a local batch does, then puts each of
 * its runs in the batch's queue for `delta worker`s; with --wait, follows the queue until every run has
 * ended and sums up the runs from their journals.
 */
export async function queueBatchCommand(spec: BatchSpec, flags: QueueBatchFlags): Promise<number> {
  for (const [key, where] of Object.entries(LOCAL_ONLY)) {
    if (flags.local[key] !== undefined) {
      throw usageError(`${flagName(key)} does not travel through the queue.`, `With --queue, ${where}.`);
    }
  }
  const { enqueueBatch, parseRedisAddress, waitForBatch, withoutPassword } = await loadOptional(
    'delta batch --queue',
    SCALE_OUT,
    () => import('@delta/queue'),
  );
  const address = parseRedisAddress(flags.queue);
  // Whatever a job's reason or a server says, the password never reaches the output.
  const say = withoutPassword(address, (text) => process.stderr.write(text));
  const sayOut = withoutPassword(address, (text) => process.stdout.write(text));
  const batch = prepareBatch({ ...spec, onWarning: printConfigWarning });
  let enqueued: Awaited<ReturnType<typeof enqueueBatch>>;
  try {
    // The images, pinned to their digests before a job exists: workers pull or unpack exactly these.
    await pinBatchImages(batch, imageCacheOption()).catch((error: unknown) => {
      // Nothing is queued: a batch this command recorded is not kept, so that the fixed command starts it afresh.
      batch.forgetIfNew();
      throw error;
    });
    enqueued = await enqueueBatch(batch, address, {
      retryFailed: flags.retryFailed === true,
      ...(flags.maxAttempts === undefined ? {} : { maxAttempts: flags.maxAttempts }),
    });
  } finally {
    // Held while the batch is recorded and queued; the runs themselves are guarded by their run locks.
    batch.release();
  }
  const { queue } = enqueued.identity;
  process.stderr.write(
    `Enqueued ${enqueued.added} of ${enqueued.runs} runs in queue ${queue} at ${address.shown}${enqueued.added < enqueued.runs ? ' (the others were still pending)' : ''}.\n` +
      `Workers: delta worker --queue ${address.shown} (on machines that see ${batch.out} at this same path)\n`,
  );
  if (flags.wait !== true) return 0;
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'following the queue');
  let last = '';
  try {
    const failedJobs = await waitForBatch(address, queue, {
      signal: controller.signal,
      onProgress: (progress) => {
        // Jobs that are not the batch's (refused ones) count too: never "8/4 ended".
        const ended = progress.completed + progress.failed;
        const jobs = Math.max(enqueued.runs, ended + progress.active + progress.waiting + progress.delayed);
        const line = `${ended}/${jobs} ended · ${progress.active} running · ${progress.waiting} waiting · ${progress.delayed} to retry · ${progress.failed} failed in the queue`;
        if (line === last) return;
        last = line;
        if (flags.json === true) process.stdout.write(`${JSON.stringify({ type: 'queue_progress', queue, ...progress })}\n`);
        else process.stderr.write(`${line}\n`);
      },
    });
    if (controller.signal.aborted) {
      process.stderr.write(`Stopped following the queue; the workers go on. Follow it again: the same command with --wait.\n`);
      return 130;
    }
    const counts = { COMPLETED: 0, FAILED: 0, INTERRUPTED: 0, WAITING_FOR_INPUT: 0, RUNNING: 0, none: 0 };
    for (const key of conditionKeys(batch)) {
      const found = readRunOnDisk(runDirectoryOf(batch, key));
      if (found.kind !== 'run') counts.none += 1;
      else counts[found.crashed ? 'RUNNING' : found.status] += 1;
    }
    // A refused job was not a run of this batch (someone else put it in the queue): said apart, it leaves the exit code alone.
    const refusedJobs = failedJobs.filter((job) => job.refused);
    const runJobs = failedJobs.filter((job) => !job.refused);
    for (const job of runJobs)
      say(`FAILED JOB ${job.id} after ${job.attempts} attempts: ${job.reason}${job.code ? ` (${job.code})` : ''}\n`);
    for (const job of refusedJobs) say(`REFUSED JOB ${job.id}: ${job.reason}\n`);
    if (refusedJobs.length > 0) {
      say(
        `${refusedJobs.length} job${refusedJobs.length === 1 ? '' : 's'} in queue ${queue} did not come from this batch and were refused: someone else can write to this Redis (give it a password: docs/scale-out.md).\n`,
      );
    }
    const summary = `${enqueued.runs} run${enqueued.runs === 1 ? '' : 's'}: ${counts.COMPLETED} completed, ${counts.FAILED} failed, ${counts.INTERRUPTED} interrupted, ${counts.WAITING_FOR_INPUT} waiting for input, ${counts.RUNNING + counts.none} not finished (${runJobs.length} jobs failed in the queue${refusedJobs.length > 0 ? `, ${refusedJobs.length} refused` : ''})`;
    if (flags.json === true)
      sayOut(
        `${JSON.stringify({ type: 'batch_end', out: batch.out, queue, runs: enqueued.runs, counts, failed_jobs: runJobs, refused_jobs: refusedJobs })}\n`,
      );
    else process.stdout.write(`${summary}\nReport: delta report ${batch.out}\n`);
    if (counts.FAILED > 0 || runJobs.length > 0 || counts.RUNNING + counts.none > 0) return 1;
    if (counts.WAITING_FOR_INPUT > 0) return 101;
    if (counts.INTERRUPTED > 0) return 3;
    return 0;
  } finally {
    release();
  }
}
