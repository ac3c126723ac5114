import { limitOutcome, RunLimitReached } from './run-limits.js';
import { asDiskFault, DeltaError, exitCodeOf } from '@delta/errors';
import { attemptFailure } from '@delta/model-wire';
import { redactSecretText, type Secrets } from './redact-secret.js';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import { invokeHook } from './lifecycle-hooks.js';
import type { NewJournalEvent } from '@delta/journal';
import { type Emit, type RunContext, runWriter, stopToolProcesses } from './run-context.js';
import { runLoop } from './run-loop.js';
import { startRunMcpServers } from './run-mcp-servers.js';

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Codes that only a write can meet: whatever threw them, the disk is at fault. */
const WRITE_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/**
 * A disk fault that no write site named (a hook's or a context source's record, the launcher's writes):
 * named by the path Node gives, else by the run's directory, so that it never passes for a tool's, a
 * hook's or the model's failure.
 */
function nameDiskFault(error: unknown, context: RunContext): unknown {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code !== 'string' || !WRITE_FAULTS.has(code)) return error;
  return asDiskFault(error, typeof path === 'string' ? path : context.paths.runDir);
}

function failed(error: unknown): RunOutcome {
  return {
    status: 'FAILED',
    exitCode: exitCodeOf(error),
    reason: errorMessage(error),
    error,
  };
}

/** A line for engine.log and the person, when the log itself may be what cannot be written. */
function logQuietly(context: RunContext, line: string): void {
  try {
    context.log(line);
  } catch {
    // engine.log cannot be written either; the outcome says what went wrong.
  }
}

/**
 * Journals the run's first events (those `begin` returns), runs the loop until the run completes, fails,
 * pauses or is stopped, then journals how it ended. Every event goes through the run's one writer
 * (`runWriter`), handed to each effect as `emit`. Whatever fails on the way, the first events included,
 * ends the run with an outcome: a full, read-only or immutable disk ends it FAILED with an error that
 * names the file.
 */
export async function driveRun(context: RunContext, begin: () => readonly NewJournalEvent[] = () => []): Promise<RunOutcome> {
  const emit = runWriter(context);
  let outcome: RunOutcome;
  try {
    for (const event of begin()) emit(event);
    await startRunMcpServers(context, emit);
    outcome = await runLoop(context, emit);
  } catch (error) {
    outcome = context.signal.aborted
      ? { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason: 'interrupted by a signal' }
      : failed(nameDiskFault(error, context));
  }
  // A limit (--timeout) stopped it through the signal: it says which, with exit code 3.
  outcome = withoutSecret(limitOutcome(outcome, context.signal), context.secrets);
  // One of the run's own limits (its time, its layer): recorded in limits_hit.
  const reason = context.signal.reason;
  if (outcome.status === 'INTERRUPTED' && reason instanceof RunLimitReached && reason.limit !== undefined)
    context.limitsHit.add(reason.limit);
  // Nothing a tool started may still run while the end hooks (unsandboxed) look at the workspace.
  await stopToolProcesses(context);
  await endHooks(context, outcome, emit);
  return finishRun(context, outcome, emit);
}

/**
 * The outcome, and its error, with the key taken out: they go to the journal, metadata.json, the hooks,
 * the caller (stderr, a worker's report). The model wire already takes out what a server quotes; this
 * covers whatever else quoted it (a hook's or a context source's failure).
 */
function withoutSecret(outcome: RunOutcome, secrets: Secrets): RunOutcome {
  if (outcome.reason === undefined) return outcome;
  if (outcome.error instanceof Error) outcome.error.message = redactSecretText(outcome.error.message, secrets);
  return { ...outcome, reason: redactSecretText(outcome.reason, secrets) };
}

/** on_error for a failed run, then on_run_end: once per engine invocation, whatever the outcome. */
async function endHooks(context: RunContext, outcome: RunOutcome, emit: Emit): Promise<void> {
  const iteration = context.metadata.current.iterations;
  // The run's own signal may be aborted already (an interrupt); the end hooks still run, to their timeouts.
  const signal = new AbortController().signal;
  try {
    if (outcome.status === 'FAILED') {
      await invokeHook(
        context,
        'on_error',
        {
          iteration,
          signal,
          errorMessage: outcome.reason ?? 'the run failed',
          inputs: { error: { message: outcome.reason, code: DeltaError.isInstance(outcome.error) ? outcome.error.code : undefined } },
        },
        emit,
      );
    }
    const end = { iteration, signal, context: { status: outcome.status, reason: outcome.reason ?? null } };
    await invokeHook(context, 'on_run_end', end, emit);
  } catch (error) {
    logQuietly(context, `a run-end hook could not be run: ${errorMessage(nameDiskFault(error, context))}`);
  }
}

/**
 * Records how the run ended: ERROR (if any) and ENGINE_END in the journal, then metadata.json, and
 * returns the outcome. When the disk refuses one of these writes (full, read-only, immutable), the run
 * ends FAILED with that error (a run that failed already keeps its own), and whatever can still be
 * written says so: on a full disk an event may still fit the journal's last block, and metadata.json is
 * rewritten in its own blocks (MetadataFile.update), so that it agrees with the journal's ENGINE_END
 * whenever it can be written at all.
 */
export function finishRun(context: RunContext, outcome: RunOutcome, emit: Emit): RunOutcome {
  const iteration = context.metadata.current.iterations;
  let ended = outcome;
  const refused = (error: unknown) => {
    if (ended.status !== 'FAILED') ended = failed(error);
  };
  if (outcome.status === 'FAILED') {
    const error = outcome.error;
    // The endpoint or the network failed, not the conversation: a plain `delta continue` sends the same request again.
    // So for an answer over llm.max_response_bytes (not retried: it would come as large again), once the cap is raised.
    const transient = attemptFailure(error).transient || (DeltaError.isInstance(error) && error.code === 'MODEL_RESPONSE_TOO_LARGE');
    if (transient) ended = { ...ended, resumable: true };
    try {
      emit({
        type: 'ERROR',
        iteration,
        error_message: outcome.reason ?? 'the run failed',
        ...(DeltaError.isInstance(error) ? { error_code: error.code } : {}),
        error_details: errorDetails(error),
        ...(transient ? { transient: true } : {}),
      });
    } catch {
      // The journal is refused: ENGINE_END, shorter, may still fit; the outcome already says what failed.
    }
  }
  try {
    emit({
      type: 'ENGINE_END',
      run_id: context.paths.runId,
      status: outcome.status,
      final_iteration: iteration,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
      ...(context.limitsHit.size > 0 ? { limits_hit: [...context.limitsHit] } : {}),
    });
  } catch (error) {
    refused(error);
  }
  try {
    context.metadata.update({
      status: ended.status,
      end_time: ended.status === 'WAITING_FOR_INPUT' ? null : new Date().toISOString(),
      error: ended.status === 'FAILED' ? (ended.reason ?? 'the run failed') : null,
      status_reason: ended.reason ?? null,
      exit_code: ended.exitCode,
      ...(context.limitsHit.size > 0
        ? { limits_hit: [...new Set([...(context.metadata.current.limits_hit ?? []), ...context.limitsHit])] }
        : {}),
    });
  } catch (error) {
    refused(error);
  }
  logQuietly(context, `run ${context.paths.runId} ended: ${ended.status}${ended.reason ? ` (${ended.reason})` : ''}`);
  return ended;
}

/**
 * What a script reading the journal needs beyond the message (spec 000's `error_details`): who is at fault,
 * the file, field and fix when known, and the underlying cause (an errno code, an HTTP status). No stack.
 */
function errorDetails(error: unknown): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  if (DeltaError.isInstance(error)) {
    details.kind = error.kind;
    if (error.file !== undefined) details.file = error.file;
    if (error.field !== undefined) details.field = error.field;
    if (error.hint !== undefined) details.hint = error.hint;
  }
  const cause = DeltaError.isInstance(error) ? (error as { cause?: unknown }).cause : error;
  // The model wire's errors carry the HTTP status themselves: the server's answer is their cause.
  const ownStatus = DeltaError.isInstance(error) ? (error as { status?: unknown }).status : undefined;
  if (cause instanceof Error) {
    const { code, status } = cause as { code?: unknown; status?: unknown };
    const causeStatus = typeof status === 'number' ? status : ownStatus;
    details.cause = {
      name: cause.name,
      message: cause.message,
      ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
      ...(typeof causeStatus === 'number' ? { status: causeStatus } : {}),
    };
  } else if (typeof ownStatus === 'number') {
    details.cause = { status: ownStatus };
  }
  return details;
}
