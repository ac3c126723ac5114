import { readdirSync } from 'node:fs';
import { hasProcFileSystem, readProcessStat } from './process-stat.js';

/** A zombie has exited and only waits for its parent to collect its status; X is a process being removed. */
function exited(state: string): boolean {
  return state === 'Z' || state === 'X';
}

/** Signal 0 checks that a pid exists without touching it; EPERM means it exists but belongs to someone else. */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process `pid` is running: it exists and is not a zombie. With `startTicks` (from
 * process.json or a lock file), also whether it is still that same process and not a later one that
 * reuses its pid. Without /proc only existence can be checked, and a reused pid counts as alive.
 */
export function isProcessAlive(pid: number, startTicks?: string): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (!hasProcFileSystem()) return pidExists(pid);
  const stat = readProcessStat(pid);
  if (stat === undefined || exited(stat.state)) return false;
  return startTicks === undefined || stat.startTicks === startTicks;
}

/** Whether any process of process group `processGroup` is running (zombies do not count). */
export function isProcessGroupAlive(processGroup: number): boolean {
  if (!Number.isSafeInteger(processGroup) || processGroup <= 0) return false;
  if (!hasProcFileSystem()) return pidExists(-processGroup);
  // Cheap first: signal 0 to the group fails when it has no member at all.
  if (!pidExists(-processGroup)) return false;
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const stat = readProcessStat(entry);
    return stat !== undefined && stat.processGroup === processGroup && !exited(stat.state);
  });
}
