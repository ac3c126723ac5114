import { defaultEndLockWaitMs, endSessionIfProven } from './end-session.js';
import { type SessionsOptions, resolveSessionsDir } from './options.js';
import { SessionError } from './session-error.js';
import { checkNotALink, listSessionIds } from './session-store.js';
import type { EndResult, LeftAloneResult } from './types.js';

/**
 * Ends every session of the sessions directory that is not terminated yet: the active ones, and the dead
 * ones a run left behind (their files are removed). Made for an `on_run_end` hook, which runs in the
 * workspace, outside the sandbox: everything under the sessions directory may have been written by a tool,
 * so a session whose directory is a link, or whose processes cannot be proven to be its own, is left
 * alone and answered as `left_alone` with the reason. Every session is tried even when one fails; the
 * failures are then reported together.
 */
/** What a directory that is not a session this version can trust answers: left alone, with the reason. */
const minimumLockWaitMs = 200;

const untrustedCodes = new Set(['SESSION_UNTRUSTED', 'INVALID_SESSION_ID', 'JSON_INVALID', 'UNSUPPORTED_STATE_VERSION']);

export async function cleanupSessions(options: SessionsOptions = {}): Promise<Array<EndResult | LeftAloneResult>> {
  const sessionsDir = resolveSessionsDir({ ...options, cwd: options.cwd ?? process.cwd() });
  await checkNotALink(sessionsDir, 'The sessions directory');
  const results: Array<EndResult | LeftAloneResult> = [];
  const failures: string[] = [];
  // One budget for every lock wait, so that many sessions with held (or forged) locks cannot make cleanup
  // wait once each; a session reached after it still gets a short try.
  const deadline = Date.now() + defaultEndLockWaitMs;
  for (const sessionId of await listSessionIds(sessionsDir)) {
    try {
      results.push(await endSessionIfProven(sessionId, { ...options, lockWaitMs: Math.max(deadline - Date.now(), minimumLockWaitMs) }));
    } catch (error) {
      // Terminated already (by an `end`, or another cleanup that got there first), or a session still being created.
      if (SessionError.isInstance(error) && (error.code === 'SESSION_ENDED' || error.code === 'SESSION_NOT_FOUND')) continue;
      if (SessionError.isInstance(error) && untrustedCodes.has(error.code)) {
        results.push({ status: 'left_alone', session_id: sessionId, reason: error.message.replace(/\.$/, '') });
        continue;
      }
      failures.push(`${sessionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length > 0) {
    const ended = results.filter((result) => result.status === 'terminated');
    const done = ended.length === 0 ? '' : ` (terminated: ${ended.map((result) => result.session_id).join(', ')})`;
    throw new SessionError(`Could not end ${failures.length} session(s)${done}: ${failures.join('; ')}`, { code: 'INTERNAL' });
  }
  return results;
}
