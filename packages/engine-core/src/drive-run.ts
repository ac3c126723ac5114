import { DeltaError } from '@delta/errors';
import { updateMetadata } from '@delta/journal';
import { ExitCode, type RunOutcome } from './exit-codes.js';
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
  finishRun(context, outcome);
  return outcome;
}

/** Records how the run ended: ERROR (if any) and ENGINE_END in the journal, then metadata.json. */
export function finishRun(context: RunContext, outcome: RunOutcome): void {
  const iteration = updateMetadata(context.paths.metadata, {}).iterations;
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
  updateMetadata(context.paths.metadata, {
    status: outcome.status,
    end_time: outcome.status === 'WAITING_FOR_INPUT' ? null : new Date().toISOString(),
    error: outcome.status === 'FAILED' ? (outcome.reason ?? 'the run failed') : null,
    status_reason: outcome.reason ?? null,
    exit_code: outcome.exitCode,
  });
  context.log(`run ${context.paths.runId} ended: ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`);
}
