import { endSession } from './end-session.js';
import { listSessions } from './list-sessions.js';
import type { SessionsOptions } from './options.js';
import { SessionError } from './session-error.js';
import type { EndResult } from './types.js';

/**
 * Ends every session of the sessions directory that is not terminated yet: the active ones, and the dead
 * ones a run left behind (their files are removed). Made for an `on_run_end` hook, which runs in the
 * workspace. Every session is tried even when one fails; the failures are then reported together.
 */
export async function cleanupSessions(options: SessionsOptions = {}): Promise<EndResult[]> {
  const ended: EndResult[] = [];
  const failures: string[] = [];
  for (const entry of await listSessions(options)) {
    if (entry.status === 'terminated') continue;
    try {
      ended.push(await endSession(entry.session_id, options));
    } catch (error) {
      // Another cleanup or `end` got there first: the session is terminated, as asked.
      if (SessionError.isInstance(error) && error.code === 'SESSION_ENDED') continue;
      failures.push(`${entry.session_id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length > 0) {
    const done = ended.length === 0 ? '' : ` (terminated: ${ended.map((result) => result.session_id).join(', ')})`;
    throw new SessionError(`Could not end ${failures.length} session(s)${done}: ${failures.join('; ')}`, { code: 'INTERNAL' });
  }
  return ended;
}
