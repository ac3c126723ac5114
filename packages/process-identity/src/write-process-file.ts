import { writeFileSync } from 'node:fs';
import type { ProcessFile } from './process-file.js';
import { processStartTicks } from './process-stat.js';

/** The identity of a running process: its pid and, where /proc has it, its start time. */
export function processIdentity(pid: number): ProcessFile {
  const startTicks = processStartTicks(pid);
  return startTicks === undefined ? { pid } : { pid, start_ticks: startTicks };
}

/**
 * Writes `{"pid":…,"start_ticks":"…"}` for a process that has just started. Kept apart from the schema
 * (which needs zod) so that the tool launcher, which only writes, loads nothing but node's own modules.
 */
export function writeProcessFile(file: string, pid: number): void {
  writeFileSync(file, `${JSON.stringify(processIdentity(pid))}\n`);
}
