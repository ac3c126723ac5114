import { join } from 'node:path';
import { resolveModelSettings } from '@delta/engine';
import { addTokenUsage, type JournalEvent, type TokenUsage } from '@delta/journal';
import type { BatchRunKey } from './batch-layout.js';
import { type BatchRunOutcome, type ExecuteRunOptions, executeBatchRun } from './execute-run.js';
import { type BatchSpec, conditionKeys, type OpenedBatch, prepareBatch, runDirectoryOf } from './open-batch.js';
import { DEFAULT_MAX_ATTEMPTS, pause, reattemptDelayMs } from './run-attempts.js';
import { runPool } from './run-pool.js';
import { pinBatchImages } from './batch-images.js';
import { sharedSignal } from './shared-signal.js';
import { checkModelKeys } from './batch-model-entry.js';
import { type BatchLimit, probeBatchLimits } from './batch-limits.js';
import { endedByLimit } from './execute-run.js';

/** What a batch reports as it goes (`delta batch --json` prints each as a line). */
export type BatchEvent =
  /** Before the first run, when the runs ask for limits: how each is held on this machine, or why it cannot be (`OUT/.batch/limits.jsonl`). */
  | { type: 'batch_limits'; limits: BatchLimit[] }
  | { type: 'batch_start'; out: string; runs: number; tasks: number; models: string[]; repeat: number; concurrency: number }
  | { type: 'run_start'; task: string; model: string; repeat: number; work_dir: string }
  | ({ type: 'run_end' } & BatchRunOutcome)
  | ({ type: 'batch_end' } & BatchSummary);

export interface BatchSummary {
  out: string;
  runs: number;
  completed: number;
  failed: number;
  interrupted: number;
  /** Runs ended by a limit of their own (their time, their layer): final, as failed runs are, but not failures of the agent's. */
  limited: number;
  /** Runs paused on a question for a person (`delta continue -w <run dir> -m ANSWER`, then the batch again). */
  waiting: number;
  /** Runs that could not be executed (locked by another process, a disk fault). */
  errors: number;
  /** Runs this command started, continued or retried; the rest were left as they were. */
  executed: number;
  usage: TokenUsage;
  cost: number;
  /** Stopped by the signal: runs not reached are still to do, the rest INTERRUPTED and resumable. */
  stopped: boolean;
}

export interface RunBatchOptions extends BatchSpec, Omit<ExecuteRunOptions, 'onEvent'> {
  /** Runs at a time (default 4). */
  concurrency?: number;
  /**
   * Attempts of a run in all when its endpoint fails transiently (`--max-attempts`, default 1): each re-attempt
   * resends the failed request after 5 s, then 10 s, 20 s ... (`reattemptDelayMs`), as a queue's jobs do.
   */
  maxAttempts?: number;
  /** The first re-attempt's delay (default 5 s). */
  reattemptDelayMs?: number;
  onBatchEvent?: (event: BatchEvent) => void;
  /** Every journal event of every run this command executes, with the run's key. */
  onRunEvent?: (key: BatchRunKey, event: JournalEvent) => void;
}

function emptySummary(out: string, runs: number): BatchSummary {
  return {
    out,
    runs,
    completed: 0,
    failed: 0,
    interrupted: 0,
    limited: 0,
    waiting: 0,
    errors: 0,
    executed: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0 },
    cost: 0,
    stopped: false,
  };
}

function count(summary: BatchSummary, outcome: BatchRunOutcome): void {
  if (outcome.error !== undefined) summary.errors += 1;
  else if (outcome.status === 'COMPLETED') summary.completed += 1;
  else if (outcome.status === 'FAILED') summary.failed += 1;
  else if (outcome.status === 'WAITING_FOR_INPUT') summary.waiting += 1;
  else if (endedByLimit(outcome.limitsHit)) summary.limited += 1;
  else summary.interrupted += 1;
  if (outcome.action !== 'skipped') summary.executed += 1;
  const usage = outcome.usage;
  if (usage) summary.usage = addTokenUsage(summary.usage, usage);
  summary.cost += outcome.cost ?? 0;
}

/** The options every run gets, from the batch's. */
function engineOptionsOf(options: Omit<RunBatchOptions, keyof BatchSpec>): ExecuteRunOptions {
  const keys = [
    'apiKey',
    'baseUrl',
    'model',
    'environment',
    'toolEnv',
    'secrets',
    'maxIterations',
    'maxRetries',
    // --max-cost and --timeout: each engine invocation's, as `delta run` has them.
    'maxCost',
    'timeoutMs',
    'signal',
    'retryFailed',
    'imageCache',
  ] as const;
  const picked = Object.fromEntries(keys.map((key) => [key, options[key]]));
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined)) as ExecuteRunOptions;
}

/**
 * A batch without a models file runs with the key and endpoint of the environment (or agent.yaml's `.env`):
 * when there is neither, every run would fail alike, so the batch stops first (API_KEY_MISSING, exit 2).
 */
function checkDefaultKey(batch: OpenedBatch, options: RunBatchOptions): void {
  if (batch.definition.models_file !== undefined || options.apiKey !== undefined || options.baseUrl !== undefined) return;
  resolveModelSettings(batch.out, batch.definition.agent, options.environment ?? process.env);
}

/**
 * Tasks that bring a verifier (`tests`, a Harbor task's tests/) in a batch with no grader: their runs would
 * end ungraded, in silence. Said once, as a warning on agent.yaml's `grader`, with the command that grades them.
 */
function warnUngradedVerifiers(batch: OpenedBatch, options: RunBatchOptions): void {
  if (batch.definition.grader !== null || options.onWarning === undefined) return;
  const verified = [...batch.tasks.values()].filter((task) => task.tests !== undefined).map((task) => task.id);
  if (verified.length === 0) return;
  const named = `${verified.slice(0, 3).join(', ')}${verified.length > 3 ? `, ... (${verified.length} tasks)` : ''}`;
  options.onWarning({
    file: join(batch.definition.agent, 'agent.yaml'),
    field: 'grader',
    message:
      `the tasks have a verifier (tests/: ${named}) but the batch has no grader, so no run is graded. ` +
      `Give grader: bash /tests/test.sh in agent.yaml (or --grader 'bash /tests/test.sh') for a new batch, or grade these runs afterwards: delta grade ${batch.out} --grader 'bash /tests/test.sh'.`,
  });
}

/**
 * Runs a batch in this process: every task × model × repeat, `concurrency` at a time, each through
 * `executeBatchRun` (so a second call with the same spec resumes: completed runs are left alone). Aborting
 * `signal` interrupts the runs in flight (INTERRUPTED, resumable) and starts no more. OUT's batch lock is
 * held throughout: a second batch process on the same OUT is refused (BATCH_LOCKED).
 */
export async function runBatch(options: RunBatchOptions): Promise<BatchSummary> {
  const batch = prepareBatch(options);
  try {
    try {
      // Every image is read and pinned to its digest before any run starts.
      await pinBatchImages(batch, options);
      // Every model's key variable is checked before any run starts, not run by run.
      checkModelKeys(batch.definition, options.environment ?? process.env);
      checkDefaultKey(batch, options);
      warnUngradedVerifiers(batch, options);
    } catch (error) {
      // Nothing ran: a batch this command recorded is not kept, so that the fixed command starts it afresh.
      batch.forgetIfNew();
      throw error;
    }
    // Said once, here, for the whole batch: how each limit asked for is held, or why it cannot be.
    const limits = probeBatchLimits(batch);
    if (limits.length > 0) options.onBatchEvent?.({ type: 'batch_limits', limits });
    return await executeBatch(batch, options);
  } finally {
    batch.release();
  }
}

/** Executes every run of an opened batch (see runBatch). */
export async function executeBatch(batch: OpenedBatch, options: Omit<RunBatchOptions, keyof BatchSpec>): Promise<BatchSummary> {
  // Only this command's condition: the runs of another agent version are never continued with this one.
  const keys = conditionKeys(batch);
  const concurrency = options.concurrency ?? 4;
  const summary = emptySummary(batch.out, keys.length);
  const emit = options.onBatchEvent ?? (() => {});
  const { onRunEvent } = options;
  // One signal for every run in flight, which may be hundreds (see shared-signal.ts).
  const shared = sharedSignal(options.signal);
  const signal = shared.signal;
  const engine = { ...engineOptionsOf(options), ...(signal ? { signal } : {}) };
  emit({
    type: 'batch_start',
    out: batch.out,
    runs: keys.length,
    tasks: batch.definition.task_ids.length,
    models: [...new Set(keys.map((key) => key.model))],
    repeat: batch.definition.repeat,
    concurrency,
  });
  await runPool(
    keys,
    concurrency,
    async (key) => {
      const { task, model, repeat } = key;
      emit({ type: 'run_start', task, model, repeat, work_dir: runDirectoryOf(batch, key) });
      const runOptions = { ...engine, ...(onRunEvent ? { onEvent: (event: JournalEvent) => onRunEvent(key, event) } : {}) };
      let outcome = await executeBatchRun(batch, key, runOptions);
      const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
      const stopped = () => signal?.aborted === true;
      while (outcome.transient && (outcome.failedAttempts ?? 1) < maxAttempts && !stopped()) {
        await pause(reattemptDelayMs(outcome.failedAttempts ?? 1, options.reattemptDelayMs), signal);
        if (stopped()) break;
        outcome = await executeBatchRun(batch, key, { ...runOptions, retryTransient: true, maxAttempts });
      }
      count(summary, outcome);
      emit({ type: 'run_end', ...outcome });
    },
    signal,
  );
  shared.release();
  summary.stopped = options.signal?.aborted === true;
  emit({ type: 'batch_end', ...summary });
  return summary;
}
