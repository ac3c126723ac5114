import { readFileSync } from 'node:fs';

/**
 * Whether `pid` is running. With `expectedInCommandLine`, also whether it is still the process we
 * started (checked through /proc where there is one), so a recycled pid does not count.
 */
export function isProcessAlive(pid: number, expectedInCommandLine?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (expectedInCommandLine === undefined) return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(expectedInCommandLine);
  } catch {
    return true; // no /proc (macOS): trust the signal check
  }
}
