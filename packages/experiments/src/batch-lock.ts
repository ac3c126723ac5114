import { join } from 'node:path';
import { ConfigurationError, makeDirectory } from '@delta/errors';
import { acquireRunLock, type RunLockHolder } from '@delta/journal';
import { batchControlDirectory } from './batch-layout.js';

/** `OUT/.batch/lock`: the one `delta batch` process that records and runs the batch in OUT. */
export function batchLockFile(out: string): string {
  return join(batchControlDirectory(out), 'lock');
}

export interface BatchLock {
  release(): void;
}

function refuse(out: string, holder: RunLockHolder): ConfigurationError {
  return new ConfigurationError(
    `Another delta batch is running on ${out} (pid ${holder.pid} on ${holder.host}, since ${holder.since}): two batches on one --out would race over the same runs.`,
    {
      code: 'BATCH_LOCKED',
      file: batchLockFile(out),
      hint: `Wait for it to finish (the same command then resumes whatever is left), stop it (kill ${holder.pid}), or pass another --out.`,
    },
  );
}

/**
 * Takes OUT's batch lock for this process, as the journal takes a run's: written whole, its lease renewed
 * while held, and taken over from a holder proved dead (a batch killed with SIGKILL). A live holder is
 * refused with BATCH_LOCKED.
 */
export function lockBatch(out: string): BatchLock {
  makeDirectory(batchControlDirectory(out));
  const lock = acquireRunLock(batchLockFile(out), 'batch', { refuse: (holder) => refuse(out, holder) });
  return { release: () => lock.release() };
}
