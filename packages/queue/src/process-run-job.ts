import { hostname } from 'node:os';
import { type DeltaErrorCode, errorKindOf, DeltaError } from '@delta/errors';
import {
  DEFAULT_MAX_ATTEMPTS,
  type BatchEngineOptions,
  type BatchRunKey,
  type BatchRunOutcome,
  executeBatchRun,
  type OpenedBatch,
  openBatch,
  runDirectoryOf,
} from '@delta/experiments';
import { type Job, UnrecoverableError } from 'bullmq';
import { finalJobFailure, jobFailure } from './job-failure.js';
import { type BatchIdentity, checkBatchIdentity } from './batch-identity.js';
import { readBatchKey } from './batch-key.js';
import { type KnownBatch, locationMismatch, placeMismatch, recordMismatch, refusedJob } from './verify-run-job.js';
import { RunJobData, type RunJobResult } from './run-job.js';

export interface RunProcessorOptions {
  /** The storage roots this worker serves batches under (real paths: see storageRoots); nothing else is served. */
  roots: readonly string[];
  /** What every run gets from this worker's own environment: endpoint, environment, tool environment. */
  engine?: Omit<BatchEngineOptions, 'signal' | 'onEvent'>;
  /** Stops the worker: runs in flight end INTERRUPTED and their jobs go back to the queue. */
  signal?: AbortSignal;
  onRunStart?: (key: BatchRunKey, workDir: string) => void;
  onRunEnd?: (outcome: BatchRunOutcome) => void;
  /**
   * This worker cannot see the job's batch (BATCH_NOT_SHARED, or its TASKS file or agent is missing
   * here): the job goes back to the queue for another worker, and this one should stop serving the batch.
   */
  onBatchRefused?: (queueName: string, error: Error) => void;
}

/** A batch as its directory records it: identity, signing key, definition and tasks, agents. */
interface RecordedBatch {
  identity: BatchIdentity;
  key: Buffer | undefined;
  batch: OpenedBatch;
}

/** What this machine is missing to run the batch: its directory, its TASKS file, its agent. */
function isMissingHere(error: unknown): boolean {
  if (DeltaError.isInstance(error)) return error.code === 'BATCH_NOT_SHARED' || error.code === 'AGENT_NOT_FOUND';
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * The configuration errors a later attempt cannot fix, as BullMQ's UnrecoverableError (no retry), named
 * for the host that hit them and led by their code. A run locked by another engine is not one of them:
 * that engine may be a worker that was presumed dead, and the lock will be free once it stops.
 */
function unrecoverable(code: DeltaErrorCode, error: { message: string; hint?: string | undefined }): UnrecoverableError {
  return finalJobFailure(code, `${error.message}${error.hint ? ` ${error.hint}` : ''} (on ${hostname()}, pid ${process.pid})`);
}

/** A DeltaError's message and hint, as one failure reason. */
function withHint(error: DeltaError): string {
  return `${error.message}${error.hint ? ` ${error.hint}` : ''}`;
}

/** A job that is not a run of its batch: failed at once, never retried, its reason starting `refused: `. */
function refuse(mismatch: string): UnrecoverableError {
  return new UnrecoverableError(refusedJob(mismatch).message);
}

function isFinal(code: string | undefined): boolean {
  return code !== undefined && code !== 'RUN_LOCKED' && errorKindOf(code) === 'configuration';
}

/**
 * The function a BullMQ worker calls for each job: checks that the batch directory here is the batch
 * the job came from and that the job is one of its runs, signed with its key (a job that is not is
 * refused: see verify-run-job.ts), then executes the run through `executeBatchRun`, exactly as a local
 * batch does.
 * Throwing makes BullMQ retry the job with backoff (a transient fault, a stopped worker); an
 * UnrecoverableError fails it at once (a configuration error).
 */
export function createRunProcessor(options: RunProcessorOptions): (job: Job<RunJobData>) => Promise<RunJobResult> {
  const batches = new Map<string, RecordedBatch>();
  // Per queue, the batch of the first job that passed every check: a later job naming another is forged.
  const known = new Map<string, KnownBatch>();
  const open = (data: RunJobData): RecordedBatch => {
    const identity = checkBatchIdentity(data.out, data.batch_id);
    const cacheKey = `${data.batch_id}\n${data.out}`;
    let recorded = batches.get(cacheKey);
    if (!recorded) {
      recorded = { identity, key: readBatchKey(data.out), batch: openBatch(data.out) };
      batches.set(cacheKey, recorded);
    }
    // A batch enqueued before it had a key gets one when its command runs again.
    recorded.key ??= readBatchKey(data.out);
    return recorded;
  };
  return async (job) => {
    const parsed = RunJobData.safeParse(job.data);
    if (!parsed.success) throw refuse(`it does not describe a run of a batch (${parsed.error.issues[0]?.message ?? 'no data'})`);
    const data = parsed.data;
    const seen = { id: job.id, name: job.name, queueName: job.queueName };
    const misplaced = placeMismatch(seen, data, known.get(job.queueName)) ?? locationMismatch(data.out, options.roots);
    if (misplaced !== undefined) throw refuse(misplaced);
    let recorded: RecordedBatch;
    try {
      recorded = open(data);
    } catch (error) {
      if (isMissingHere(error)) {
        // Not the batch's fault: another worker that sees the shared storage takes the run.
        const refused = DeltaError.isInstance(error)
          ? jobFailure(error.code, withHint(error))
          : jobFailure('BATCH_NOT_SHARED', (error as Error).message);
        options.onBatchRefused?.(job.queueName, refused);
        throw refused;
      }
      if (DeltaError.isInstance(error))
        throw isFinal(error.code) ? unrecoverable(error.code, error) : jobFailure(error.code, withHint(error));
      throw error;
    }
    const mismatch = recordMismatch(seen, data, recorded);
    if (mismatch !== undefined) throw refuse(mismatch);
    if (!known.has(job.queueName)) known.set(job.queueName, { out: data.out, batch_id: data.batch_id });
    const { batch } = recorded;
    const key: BatchRunKey = { task: data.task, model: data.model, repeat: data.repeat };
    options.onRunStart?.(key, runDirectoryOf(batch, key));
    const outcome = await executeBatchRun(batch, key, {
      ...options.engine,
      ...(options.signal ? { signal: options.signal } : {}),
      retryFailed: data.retry_failed,
      // A later attempt of a run FAILED by a flaky endpoint sends the same request again, up to --max-attempts.
      retryTransient: job.attemptsMade > 0,
      maxAttempts: data.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
    });
    options.onRunEnd?.(outcome);
    // Stopped in the middle: the run is INTERRUPTED, for another attempt. A run that ended anyway stays ended.
    if (options.signal?.aborted && outcome.status === 'INTERRUPTED') {
      throw jobFailure('WORKER_STOPPED', `the worker on ${hostname()} was stopped; the run is left INTERRUPTED for another attempt`);
    }
    // The run's journal has its error's code (a code another version wrote is the system's: see errorKindOf).
    const code = (outcome.errorCode ?? 'INTERNAL') as DeltaErrorCode;
    if (outcome.error !== undefined) {
      if (isFinal(outcome.errorCode)) throw unrecoverable(code, { message: outcome.error });
      throw jobFailure(code, outcome.error);
    }
    const attemptsLeft = (outcome.failedAttempts ?? 1) < (data.max_attempts ?? DEFAULT_MAX_ATTEMPTS);
    if (outcome.transient && attemptsLeft && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) {
      throw jobFailure(
        outcome.errorCode === undefined ? 'MODEL_ERROR' : code,
        `the run FAILED on a transient fault of the model endpoint (${outcome.reason ?? 'no reason recorded'}); retried later`,
      );
    }
    return {
      status: outcome.status,
      action: outcome.action,
      ...(outcome.runId === undefined ? {} : { run_id: outcome.runId }),
      ...(outcome.iterations === undefined ? {} : { iterations: outcome.iterations }),
      host: hostname(),
      pid: process.pid,
    };
  };
}
