import { readFileSync } from 'node:fs';

/**
 * When the process started, in clock ticks since boot (field 22 of /proc/<pid>/stat), which tells a
 * process from a later one that reuses its pid. Undefined where /proc is not available or it has exited.
 */
export function processStartTicks(pid: number): string | undefined {
  return readStat(pid)?.startTicks;
}

function readStat(pid: number): { state: string; startTicks: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', startTicks: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** The same process (pid and start time) is still alive: not gone, and not a zombie waiting to be reaped. */
function stillRunning(pid: number, startTicks: string): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.startTicks === startTicks && stat.state !== 'Z' && stat.state !== 'X';
}

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
  if (!stillRunning(pid, startTicks)) return false;
  if (!signalGroup(pid, 'SIGTERM')) return false;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!stillRunning(pid, startTicks)) return true;
  }
  signalGroup(pid, 'SIGKILL');
  return true;
}
