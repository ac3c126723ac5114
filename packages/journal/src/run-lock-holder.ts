import { hostname } from 'node:os';
import { isProcessAlive, ProcessFile, processIdentity } from '@delta/process-identity';
import { z } from 'zod';

/**
 * `engine.lock`: the engine process that writes to a run. A process file (pid, start time) plus the host
 * it runs on and when it took the lock. The one place the holder is parsed (issue 22 adds a lease for
 * holders on other hosts here).
 */
export const RunLockHolder = ProcessFile.extend({
  host: z.string().min(1),
  /** When the lock was taken (ISO 8601). */
  since: z.string().min(1),
});
export type RunLockHolder = z.infer<typeof RunLockHolder>;

/** This process as a holder, in the file's field order: pid, host, since, start_ticks. */
export function currentHolder(): RunLockHolder {
  const { pid, start_ticks } = processIdentity(process.pid);
  return { pid, host: hostname(), since: new Date().toISOString(), ...(start_ticks === undefined ? {} : { start_ticks }) };
}

/** The holder in a lock file's text, or the problem with it (which field, what is wrong). */
export function safeParseRunLockHolder(text: string): { success: true; data: RunLockHolder } | { success: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { success: false, problem: text === '' ? 'the file is empty' : `not JSON (${(error as Error).message})` };
  }
  const parsed = RunLockHolder.safeParse(value);
  if (parsed.success) return { success: true, data: parsed.data };
  return {
    success: false,
    problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(the whole file)'}: ${issue.message}`).join('; '),
  };
}

/**
 * Whether a holder may still be writing. Only a holder on this host can be proved dead: its pid is gone,
 * is a zombie, or belongs to a later process (another start time). A holder on another host counts as
 * alive: nothing here can tell.
 */
export function holderIsAlive(holder: RunLockHolder): boolean {
  if (holder.host !== hostname()) return true;
  return isProcessAlive(holder.pid, holder.start_ticks);
}
