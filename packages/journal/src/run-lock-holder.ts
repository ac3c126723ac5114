import { hostname } from 'node:os';
import { isProcessAlive, ProcessFile, processIdentity } from '@delta/process-identity';
import { z } from 'zod';

/**
 * `engine.lock`: the engine process that writes to a run. A process file (pid, start time) plus the host
 * it runs on, when it took the lock, and until when its lease holds. The one place the holder is parsed.
 */
export const RunLockHolder = ProcessFile.extend({
  host: z.string().min(1),
  /** When the lock was taken (ISO 8601). */
  since: z.string().min(1),
  /**
   * Until when the holder vouches for itself (ISO 8601): it renews the lease every few seconds while it
   * runs. Only a process on another host needs it (a pid there cannot be checked from here). Absent in
   * files written before leases: such a holder on another host is never taken over.
   */
  lease_until: z.iso.datetime({ offset: true }).optional(),
});
export type RunLockHolder = z.infer<typeof RunLockHolder>;

/** This process's pid and start time: read from /proc once, since they never change. */
let ownIdentity: ReturnType<typeof processIdentity> | undefined;

/** This process as a holder, in the file's field order: pid, host, since, start_ticks, lease_until. */
export function currentHolder(leaseMs: number, now = Date.now()): RunLockHolder {
  ownIdentity ??= processIdentity(process.pid);
  const { pid, start_ticks } = ownIdentity;
  return {
    pid,
    host: hostname(),
    since: new Date(now).toISOString(),
    ...(start_ticks === undefined ? {} : { start_ticks }),
    lease_until: new Date(now + leaseMs).toISOString(),
  };
}

/** The holder in a lock file's text, or the problem with it (which field, what is wrong). */
export function safeParseRunLockHolder(text: string): { success: true; data: RunLockHolder } | { success: false; problem: string } {
  let value: unknown;
  // Not safeParseJson: the caller puts this one-line problem into its own error about the lock.
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
 * Whether a holder may still be writing. A holder on this host is dead when its pid is gone, is a zombie,
 * or belongs to a later process (another start time). A holder on another host is judged by its lease
 * alone (its pid means nothing here, even when a process here has the same one): alive until the lease
 * runs out, and always alive when it has none.
 */
export function holderIsAlive(holder: RunLockHolder, now = Date.now()): boolean {
  if (holder.host !== hostname()) return holder.lease_until === undefined || Date.parse(holder.lease_until) > now;
  return isProcessAlive(holder.pid, holder.start_ticks);
}
