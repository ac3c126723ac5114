import { conditionKeys, type OpenedBatch, runDirectoryOf } from './open-batch.js';
import type { BatchSummary } from './run-batch.js';
import type { OracleSummary } from './run-oracle.js';
import { readRunOnDisk } from './run-record.js';

/**
 * `delta batch`'s exit code: 130 when stopped; 1 with failed runs, runs ended at a limit of their own or runs that
 * could not be executed; 101 with runs waiting for a person; 3 with runs interrupted; 0 when every run completed.
 */
export function batchExitCode(
  summary: Pick<BatchSummary, 'stopped' | 'failed' | 'limited' | 'errors' | 'waiting' | 'interrupted'>,
): number {
  if (summary.stopped) return 130;
  if (summary.failed > 0 || summary.limited > 0 || summary.errors > 0) return 1;
  if (summary.waiting > 0) return 101;
  if (summary.interrupted > 0) return 3;
  return 0;
}

/** `delta batch --oracle`'s exit code: 130 when stopped, 1 when an oracle failed or did not finish, else 0. */
export function oracleExitCode(summary: Pick<OracleSummary, 'stopped' | 'failed' | 'notRun'>): number {
  if (summary.stopped) return 130;
  return summary.failed > 0 || summary.notRun > 0 ? 1 : 0;
}

/** The runs of a batch's condition by their state on disk: a status, RUNNING for a run that crashed, `none` for one never started. */
export interface BatchRunCounts {
  COMPLETED: number;
  FAILED: number;
  INTERRUPTED: number;
  WAITING_FOR_INPUT: number;
  RUNNING: number;
  none: number;
}

/** Counts the runs of the batch's condition from their run directories (`delta batch --queue --wait`, at the end). */
export function countBatchRuns(batch: Pick<OpenedBatch, 'out' | 'definition' | 'condition'>): BatchRunCounts {
  const counts: BatchRunCounts = { COMPLETED: 0, FAILED: 0, INTERRUPTED: 0, WAITING_FOR_INPUT: 0, RUNNING: 0, none: 0 };
  for (const key of conditionKeys(batch)) {
    const found = readRunOnDisk(runDirectoryOf(batch, key));
    if (found.kind !== 'run') counts.none += 1;
    else counts[found.crashed ? 'RUNNING' : found.status] += 1;
  }
  return counts;
}

/**
 * A queued batch's exit code, once the queue is empty: 1 with failed runs, failed jobs (`failedJobs`: those of the
 * batch's runs, not jobs refused) or runs that did not end; 101 with runs waiting; 3 with runs interrupted; else 0.
 */
export function queuedBatchExitCode(counts: BatchRunCounts, failedJobs: number): number {
  if (counts.FAILED > 0 || failedJobs > 0 || counts.RUNNING + counts.none > 0) return 1;
  if (counts.WAITING_FOR_INPUT > 0) return 101;
  if (counts.INTERRUPTED > 0) return 3;
  return 0;
}
