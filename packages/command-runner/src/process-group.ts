import { isProcessAlive, isProcessGroupAlive } from '@delta/process-identity';

/** Sends `signal` to every process of the group led by `pid`; false when there is none (or no pid). */
export function signalProcessGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    // The group is already gone.
    return false;
  }
}

/**
 * Stops the process group led by `pid`: SIGTERM, then SIGKILL once `graceMs` has passed while `isAlive`
 * (by default: the group still has a live member) holds. Returns whether the group was there to stop.
 */
export async function stopProcessGroup(
  pid: number,
  graceMs = 1000,
  isAlive: () => boolean = () => isProcessGroupAlive(pid),
): Promise<boolean> {
  if (!signalProcessGroup(pid, 'SIGTERM')) return false;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (!isAlive()) return true;
  }
  signalProcessGroup(pid, 'SIGKILL');
  return true;
}

/**
 * Stops the process group a command ran in (SIGTERM, then SIGKILL after `graceMs`), but only when its
 * leader is provably the same process that was started: same pid and same start time. Returns whether it
 * was still running and was stopped; a process that cannot be identified is left alone.
 */
export async function stopProcessGroupIfSame(pid: number, startTicks: string, graceMs = 1000): Promise<boolean> {
  if (!isProcessAlive(pid, startTicks)) return false;
  return stopProcessGroup(pid, graceMs, () => isProcessAlive(pid, startTicks));
}
