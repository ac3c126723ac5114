import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { continueRun, type EngineOptions, type RunResult, startRun } from '@delta/engine';
import { ConfigurationError, DeltaError } from '@delta/errors';
import { acquireRunLock, listRunIds, type RunStatus, runPaths, type TokenUsage } from '@delta/journal';
import { checkAgentVersion } from './agent-version-check.js';
import { imageOfTask, imageSandboxOptions } from './batch-images.js';
import type { BatchRunKey } from './batch-layout.js';
import { type Grade, readGrade } from './grade.js';
import { gradeRun } from './grade-run.js';
import { modelRunOptions } from './batch-model-entry.js';
import { type OpenedBatch, runDirectoryOf } from './open-batch.js';
import { prepareWorkspace, resetWorkspace } from './prepare-workspace.js';
import { transientFailures } from './run-attempts.js';
import { readRunOnDisk } from './run-record.js';
import { recordTaskStartState } from './task-start-state.js';

/** What one execution of a batch run did. */
export type BatchRunAction =
  /** A new run was started. */
  | 'started'
  /** An interrupted, crashed or answered run was continued. */
  | 'continued'
  /** A failed run was tried again (`retryFailed`): a new run in the reset workspace, or a resend after a transient failure. */
  | 'retried'
  /** Nothing to do: completed, failed (without `retryFailed`) or waiting for a person. */
  | 'skipped';

export interface BatchRunOutcome {
  key: BatchRunKey;
  workDir: string;
  action: BatchRunAction;
  /** How the run stands now; RUNNING only when the run could not be touched (`error` says why). */
  status: RunStatus;
  runId?: string;
  exitCode?: number;
  reason?: string;
  iterations?: number;
  usage?: TokenUsage;
  cost?: number;
  grade?: Grade;
  /** The run could not be executed at all (locked by another process, a disk fault): the message. */
  error?: string;
  /** With `error`: its code (`RUN_LOCKED`, `DISK_FULL`, `API_KEY_MISSING`...), for a caller that retries some. */
  errorCode?: string;
  /** The limits the run ran into (metadata.json's `limits_hit`): `processes`, `memory`, `layer`, `time`. */
  limitsHit?: string[];
  /** FAILED by a transient fault of the model endpoint: the same request may succeed later (see `retryTransient`). */
  transient?: boolean;
  /** With `transient`: how many attempts of the run have ended so (see run-attempts.ts). */
  failedAttempts?: number;
}

/** The engine options a batch passes to every run (the model endpoint, environments, the signal). */
export type BatchEngineOptions = Pick<
  EngineOptions,
  | 'apiKey'
  | 'baseUrl'
  | 'model'
  | 'environment'
  | 'toolEnv'
  | 'secrets'
  | 'maxIterations'
  | 'maxRetries'
  | 'maxCost'
  | 'timeoutMs'
  | 'signal'
  | 'onEvent'
> & {
  /** The cache of unpacked images (default ~/.cache/delta/images). */
  imageCache?: string;
};

export interface ExecuteRunOptions extends BatchEngineOptions {
  /** Try FAILED runs again (`--retry-failed`); otherwise they are left as they are. */
  retryFailed?: boolean;
  /** Continue a run FAILED by a transient fault of the endpoint (a queue's next attempt), without `retryFailed`. */
  retryTransient?: boolean;
  /** With `retryTransient`: attempts in all (`--max-attempts`); a run that has failed this often is left FAILED. */
  maxAttempts?: number;
}

/**
 * Removes a run directory left by an engine killed before it wrote metadata.json (so nothing in it ever
 * reached the model), so the run can start under its id. Its lock tells whether that engine is dead: a
 * live one keeps it (RUN_LOCKED), and its directory stays.
 */
function clearAbandonedRun(workDir: string, runId: string): void {
  const paths = runPaths(workDir, runId);
  if (!existsSync(paths.runDir) || existsSync(paths.metadata)) return;
  acquireRunLock(paths.lock, runId).release();
  rmSync(paths.runDir, { recursive: true, force: true });
}

/** The first run of a batch workspace is `run-1`, a retry of a failed one `run-2`, and so on. */
function nextRunId(workDir: string): string {
  const taken = new Set(listRunIds(workDir));
  let attempt = taken.size + 1;
  while (taken.has(`run-${attempt}`)) attempt += 1;
  return `run-${attempt}`;
}

/** The limits that end a run for good (the run's own time, its layer); the others leave it going or resumable. */
const FINAL_LIMITS = new Set(['time', 'layer']);

/** Whether the run ended at one of its own limits (see FINAL_LIMITS): nothing in the batch continues it. */
export function endedByLimit(limitsHit: readonly string[] | undefined): boolean {
  return (limitsHit ?? []).some((limit) => FINAL_LIMITS.has(limit));
}

function lastErrorWasTransient(events: readonly { type: string }[]): boolean {
  const last = events.findLast((event) => event.type === 'ERROR') as { transient?: unknown } | undefined;
  return last?.transient === true;
}

/**
 * Executes one run of a batch, given the batch and the run's key: starts it, continues it (interrupted,
 * crashed, or answered through interaction/response.txt), retries it when FAILED and asked to, or leaves
 * it (COMPLETED, FAILED, or waiting for a person). Everything it decides comes from the run's journal, so a
 * local pool and a queue worker can call it for the same key, any number of times. A grader, when the
 * batch has one, scores a completed run that has no grade.json yet.
 */
export async function executeBatchRun(batch: OpenedBatch, key: BatchRunKey, options: ExecuteRunOptions = {}): Promise<BatchRunOutcome> {
  const workDir = runDirectoryOf(batch, key);
  const task = batch.tasks.get(key.task);
  const agent = batch.agents.get(key.model);
  if (!task || !agent) {
    throw new ConfigurationError(`The batch in ${batch.out} has no ${!task ? `task "${key.task}"` : `model "${key.model}"`}.`, {
      code: 'INVALID_ARGUMENT',
      hint: `A run's key names one of the batch's tasks and models, as batchKeys(batch.definition) lists them (${batch.definition.task_ids.length} tasks, models ${batch.definition.models.map((model) => model.name).join(', ')}).`,
    });
  }
  // No askHuman: a run that asks a person pauses (WAITING_FOR_INPUT) and the batch goes on.
  const { retryFailed, retryTransient, maxAttempts, imageCache, ...engineOptions } = options;
  let result: RunResult | undefined;
  let action: BatchRunAction = 'skipped';
  try {
    // A models file's model: its own endpoint and key, read here (API_KEY_MISSING when its variable is not set).
    const own = modelRunOptions(batch.definition, key.model, engineOptions.environment ?? process.env);
    // A run stops rather than send a request made from an agent changed while it went.
    // A run in an image: the task's, the batch's or the agent's, at the digest the batch pinned.
    // The task's limits over agent.yaml's sandbox.limits, field by field (the engine merges them).
    const sandbox = {
      ...imageSandboxOptions(batch.definition, imageOfTask(batch.definition, task, agent), imageCache),
      ...(task.limits === undefined ? {} : { limits: task.limits }),
    };
    const engine = {
      ...engineOptions,
      ...own,
      agent,
      pinAgentVersion: true,
      ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
      // The task's timeout_sec: the run's own wall time, over all its engine invocations.
      ...(task.timeout_sec === undefined ? {} : { timeLimitMs: Math.round(task.timeout_sec * 1000) }),
    };
    const found = readRunOnDisk(workDir);
    // Whatever this does with the run, it does it with the agent version the run (and its condition) started with.
    const checkVersion = () => checkAgentVersion(batch, key, agent, found.kind === 'run' ? found.events : undefined);
    if (found.kind === 'none' || found.kind === 'unstarted') {
      checkVersion();
      // A run stopped before its metadata.json existed never reached the model: claim its id again, once its
      // lock proves the engine that took it dead (a live one, in another process, is RUN_LOCKED).
      clearAbandonedRun(workDir, found.kind === 'unstarted' ? found.runId : 'run-1');
      prepareWorkspace(workDir, task);
      recordTaskStartState(batch.out, task, workDir);
      const runId = found.kind === 'unstarted' ? found.runId : 'run-1';
      result = await startRun({ ...engine, message: task.message, workDir, runId });
      action = 'started';
    } else if (found.status === 'INTERRUPTED' && endedByLimit(found.metadata.limits_hit)) {
      // Its time or its layer ran out: the run is over, as a failed one is, and never continued; with
      // --retry-failed it is tried again, as a failed one is: a new run in the reset workspace.
      if (retryFailed === true) {
        checkVersion();
        resetWorkspace(workDir, task);
        recordTaskStartState(batch.out, task, workDir);
        result = await startRun({ ...engine, message: task.message, workDir, runId: nextRunId(workDir) });
        action = 'retried';
      }
    } else if (found.status === 'INTERRUPTED' || found.crashed) {
      checkVersion();
      result = await continueRun({ ...engine, workDir, runId: found.runId });
      action = 'continued';
    } else if (found.status === 'WAITING_FOR_INPUT' && existsSync(join(found.paths.interactionDir, 'response.txt'))) {
      checkVersion();
      result = await continueRun({ ...engine, workDir, runId: found.runId });
      action = 'continued';
    } else if (
      found.status === 'FAILED' &&
      retryFailed !== true &&
      retryTransient === true &&
      lastErrorWasTransient(found.events) &&
      transientFailures(found.events) < (maxAttempts ?? Number.POSITIVE_INFINITY)
    ) {
      // The endpoint failed, not the conversation: the engine sends the same request again.
      checkVersion();
      result = await continueRun({ ...engine, workDir, runId: found.runId });
      action = 'retried';
    } else if (found.status === 'FAILED' && retryFailed === true) {
      checkVersion();
      if (lastErrorWasTransient(found.events)) {
        // The endpoint failed, not the conversation: the engine sends the same request again.
        result = await continueRun({ ...engine, workDir, runId: found.runId });
      } else {
        resetWorkspace(workDir, task);
        recordTaskStartState(batch.out, task, workDir);
        result = await startRun({ ...engine, message: task.message, workDir, runId: nextRunId(workDir) });
      }
      action = 'retried';
    }
  } catch (error) {
    if (!DeltaError.isInstance(error)) throw error;
    // A run refused as another version of its batch says how to go on, as the batch's own refusal does.
    const message = error.code === 'BATCH_CHANGED' && error.hint ? `${error.message} ${error.hint}` : error.message;
    return { key, workDir, action, status: 'RUNNING', error: message, errorCode: error.code };
  }
  return describe(batch, key, workDir, action, result, options);
}

/** The outcome: from the engine's result when it says enough, else as the run's files say it; graded if the batch has a grader. */
async function describe(
  batch: OpenedBatch,
  key: BatchRunKey,
  workDir: string,
  action: BatchRunAction,
  result: RunResult | undefined,
  options: ExecuteRunOptions,
): Promise<BatchRunOutcome> {
  const grader = batch.definition.grader;
  // A run this process just drove: its totals are in hand, and nothing needs its journal (no failure to
  // classify, nothing to grade), so it is not read back from disk.
  if (result && result.status !== 'FAILED' && (grader === null || result.status !== 'COMPLETED')) {
    const reason = result.reason ?? result.metadata.status_reason;
    const limitsHit = result.metadata.limits_hit;
    return {
      key,
      workDir,
      action,
      status: result.status,
      runId: result.runId,
      iterations: result.metadata.iterations,
      exitCode: result.exitCode,
      ...(reason ? { reason } : {}),
      ...(result.metadata.usage ? { usage: result.metadata.usage } : {}),
      ...(result.metadata.estimated_cost ? { cost: result.metadata.estimated_cost.amount } : {}),
      ...(limitsHit && limitsHit.length > 0 ? { limitsHit } : {}),
    };
  }
  const found = readRunOnDisk(workDir);
  if (found.kind !== 'run') return { key, workDir, action, status: 'RUNNING', error: 'the run left no metadata.json' };
  const outcome: BatchRunOutcome = {
    key,
    workDir,
    action,
    status: found.status,
    runId: found.runId,
    iterations: found.metadata.iterations,
    ...(result ? { exitCode: result.exitCode } : {}),
    ...((result?.reason ?? found.metadata.status_reason) ? { reason: (result?.reason ?? found.metadata.status_reason)! } : {}),
    ...(found.metadata.usage ? { usage: found.metadata.usage } : {}),
    ...(found.metadata.estimated_cost ? { cost: found.metadata.estimated_cost.amount } : {}),
    ...(found.metadata.limits_hit && found.metadata.limits_hit.length > 0 ? { limitsHit: found.metadata.limits_hit } : {}),
    ...(found.status === 'FAILED' && lastErrorWasTransient(found.events)
      ? { transient: true, failedAttempts: transientFailures(found.events) }
      : {}),
  };
  if (grader === null || found.status !== 'COMPLETED') return outcome;
  const existing = readGrade(found.paths.runDir, grader);
  if (existing && existing.run_id === found.runId && action === 'skipped') return { ...outcome, grade: existing };
  const grade = await gradeRun(grader, batch.tasks.get(key.task)!, key, found, batch.definition.agent, {
    environment: options.environment,
    finalAnswer: result?.finalAnswer,
    modelsFile: batch.definition.models_file,
    // A command grader gets what the agent's tools get of the environment, and no secret of the run.
    sandboxEnv: batch.agents.get(key.model)?.config.sandbox?.env,
    secrets: [...(options.apiKey === undefined ? [] : [options.apiKey]), ...(options.secrets ?? [])],
    imageCache: options.imageCache,
  });
  return { ...outcome, grade };
}
