import { readFileSync } from 'node:fs';
import { hasProcFileSystem, isProcessAlive } from '@delta/process-identity';

/**
 * Whether `pid` is running (a zombie is not). With `expectedInCommandLine`, also whether it is still
 * the process a session started, its command line naming it (checked where there is a /proc), so that
 * a recycled pid does not count.
 */
export function isSessionProcessAlive(pid: number, expectedInCommandLine?: string): boolean {
  if (!isProcessAlive(pid)) return false;
  if (expectedInCommandLine === undefined || !hasProcFileSystem()) return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(expectedInCommandLine);
  } catch {
    return false;
  }
}
