import { DeltaError } from '@delta/errors';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import { invokeHook } from './lifecycle-hooks.js';
import { record, type RunContext } from './run-context.js';
import { runLoop } from './run-loop.js';

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs the loop until the run completes, fails, pauses or is stopped, then records how it ended. */
export async function driveRun(context: RunContext): Promise<RunOutcome> {
  let outcome: RunOutcome;
  try {
    outcome = await runLoop(context);
  } catch (error) {
    outcome = context.signal.aborted
      ? { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason: 'interrupted by a signal' }
      : {
          status: 'FAILED',
          exitCode: DeltaError.isInstance(error) && error.kind === 'configuration' ? ExitCode.USAGE : ExitCode.FAILED,
          reason: errorMessage(error),
          error,
        };
  }
  await endHooks(context, outcome);
  // Every record of the run is on disk before the journal says it ended.
  try {
    await context.launcher?.settle();
  } catch (error) {
    context.log(`a record could not be written: ${errorMessage(error)}`);
  }
  finishRun(context, outcome);
  return outcome;
}

/** on_error for a failed run, then on_run_end: once per engine invocation, whatever the outcome. */
async function endHooks(context: RunContext, outcome: RunOutcome): Promise<void> {
  const iteration = context.metadata.current.iterations;
  // The run's own signal may be aborted already (an interrupt); the end hooks still run, to their timeouts.
  const signal = new AbortController().signal;
  try {
    if (outcome.status === 'FAILED') {
      await invokeHook(context, 'on_error', {
        iteration,
        signal,
        errorMessage: outcome.reason ?? 'the run failed',
        inputs: { error: { message: outcome.reason, code: DeltaError.isInstance(outcome.error) ? outcome.error.code : undefined } },
      });
    }
    await invokeHook(context, 'on_run_end', { iteration, signal, context: { status: outcome.status, reason: outcome.reason ?? null } });
  } catch (error) {
    context.log(`a run-end hook could not be run: ${errorMessage(error)}`);
  }
}

/** Records how the run ended: ERROR (if any) and ENGINE_END in the journal, then metadata.json. */
export function finishRun(context: RunContext, outcome: RunOutcome): void {
  const iteration = context.metadata.current.iterations;
  if (outcome.status === 'FAILED') {
    const error = outcome.error;
    record(context, {
      type: 'ERROR',
      iteration,
      error_message: outcome.reason ?? 'the run failed',
      ...(DeltaError.isInstance(error) ? { error_code: error.code } : {}),
    });
  }
  record(context, {
    type: 'ENGINE_END',
    run_id: context.paths.runId,
    status: outcome.status,
    final_iteration: iteration,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
  });
  context.metadata.update({
    status: outcome.status,
    end_time: outcome.status === 'WAITING_FOR_INPUT' ? null : new Date().toISOString(),
    error: outcome.status === 'FAILED' ? (outcome.reason ?? 'the run failed') : null,
    status_reason: outcome.reason ?? null,
    exit_code: outcome.exitCode,
  });
  context.log(`run ${context.paths.runId} ended: ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`);
}
