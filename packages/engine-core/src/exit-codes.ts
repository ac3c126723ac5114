import type { RunStatus } from '@delta/journal';

/** Process exit codes (spec README resolution 7). */
export const ExitCode = {
  COMPLETED: 0,
  FAILED: 1,
  USAGE: 2,
  ITERATION_BUDGET: 3,
  WAITING_FOR_INPUT: 101,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** How a run stopped: its status, why, and the exit code that says it to a shell. */
export interface RunOutcome {
  status: Exclude<RunStatus, 'RUNNING'>;
  exitCode: ExitCode;
  /** The model's last answer, when the run completed. */
  finalAnswer?: string;
  /** Why the run stopped, when the status alone does not say (a budget, a signal, an error). */
  reason?: string;
  error?: unknown;
  /**
   * A FAILED run whose failure was the endpoint's or the network's, not the conversation's (the journal's
   * ERROR says `transient`): a plain `delta continue` (`continueRun` with no message) sends the same request again.
   */
  resumable?: true;
}
