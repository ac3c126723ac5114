import { isProcessAlive } from '@delta/process-identity';

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the process group a command ran in (SIGTERM, then SIGKILL after `graceMs`), but only when its
 * leader is provably the same process that was started: same pid and same start time. Returns whether it
 * was still running and was stopped; a process that cannot be identified is left alone.
 */
export async function stopProcessGroupIfSame(pid: number, startTicks: string, graceMs = 1000): Promise<boolean> {
  if (!isProcessAlive(pid, startTicks)) return false;
  if (!signalGroup(pid, 'SIGTERM')) return false;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!isProcessAlive(pid, startTicks)) return true;
  }
  signalGroup(pid, 'SIGKILL');
  return true;
}
