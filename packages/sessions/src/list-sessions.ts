import { resolve } from 'node:path';
import { isSupervisorAlive } from './interpreter-process.js';
import { type SessionsOptions, resolveSessionsDir } from './options.js';
import { SessionError } from './session-error.js';
import { checkedSessionPaths, listSessionIds, readMetadata } from './session-store.js';
import type { SessionListEntry, SessionStatus } from './types.js';

/** Every session in the sessions directory, oldest first; an interpreter whose process is gone is `dead`. */
export async function listSessions(options: SessionsOptions = {}): Promise<SessionListEntry[]> {
  const sessionsDir = resolveSessionsDir({ ...options, cwd: resolve(options.cwd ?? process.cwd()) });
  const entries: SessionListEntry[] = [];
  for (const sessionId of await listSessionIds(sessionsDir)) {
    let paths;
    let metadata;
    try {
      paths = await checkedSessionPaths(sessionsDir, sessionId);
      metadata = await readMetadata(paths, sessionId);
    } catch (error) {
      if (SessionError.isInstance(error)) continue; // a half-created, foreign or untrusted directory (a link)
      throw error;
    }
    let status: SessionStatus = metadata.status;
    if (status === 'active' && metadata.kind === 'interpreter' && !isSupervisorAlive(metadata, paths.directory)) status = 'dead';
    entries.push({ session_id: metadata.session_id, command: metadata.command, status, created_at: metadata.created_at });
  }
  return entries.sort((a, b) => a.created_at.localeCompare(b.created_at));
}
