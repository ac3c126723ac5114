import { readFileSync } from 'node:fs';

/** What /proc/<pid>/stat says about a process, the fields Delta Engine needs. */
export interface ProcessStat {
  /** One letter: R running, S sleeping, D disk wait, T stopped, Z zombie, X dead, ... */
  state: string;
  parentPid: number;
  processGroup: number;
  /**
   * When the process started, in clock ticks since boot (field 22): with the pid, what tells a process
   * from a later one that reuses its pid. A string, as it is written in process.json and lock files.
   */
  startTicks: string;
  /** Its resident memory now, in pages (field 24). */
  residentPages: number;
}

/**
 * Reads /proc/<pid>/stat. Undefined when the process does not exist (or has been reaped) or where
 * there is no /proc (macOS, say).
 */
export function readProcessStat(pid: number | string): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2, the command name, may hold spaces and parentheses: the fields that follow start after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, parentPid, processGroup] = fields;
  const startTicks = fields[19];
  if (state === undefined || startTicks === undefined || !/^\d+$/.test(startTicks)) return undefined;
  return { state, parentPid: Number(parentPid), processGroup: Number(processGroup), startTicks, residentPages: Number(fields[21] ?? 0) };
}

/** The start time (clock ticks since boot) of a process, or undefined when it is gone or there is no /proc. */
export function processStartTicks(pid: number): string | undefined {
  return readProcessStat(pid)?.startTicks;
}

let procAvailable: boolean | undefined;

/** Whether this system has a /proc to read processes from (Linux); without one, liveness falls back to signals. */
export function hasProcFileSystem(): boolean {
  procAvailable ??= readProcessStat(process.pid) !== undefined;
  return procAvailable;
}
