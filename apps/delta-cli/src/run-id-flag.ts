import { DeltaError } from '@delta/errors';
import { runIdProblem } from '@delta/journal';
import { usageError } from './usage-error.js';

/** `--run-id ID`, checked before anything is written: a run id becomes a directory under `.delta/`. */
export function parseRunIdFlag(value: unknown): string {
  const runId = String(value);
  const problem = runIdProblem(runId);
  if (problem !== undefined) {
    throw usageError(
      `--run-id ${JSON.stringify(runId)} cannot be used: ${problem}.`,
      'Choose a name such as nightly-42 or review.2026-11-24 (letters, digits, ".", "_" and "-").',
    );
  }
  return runId;
}

/** The engine's RUN_ID_TAKEN, said in terms of the option the user gave. */
export function runIdTaken(error: unknown, runId: string, workDir: string): unknown {
  if (!DeltaError.isInstance(error) || error.code !== 'RUN_ID_TAKEN') return error;
  return usageError(
    `--run-id ${runId}: a run with that id already exists in ${workDir}.`,
    `Choose another --run-id, or continue that run: delta continue -w ${workDir} --run-id ${runId}`,
  );
}
