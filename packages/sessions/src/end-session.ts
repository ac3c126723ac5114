import { resolve } from 'node:path';
import { acquireExecLock } from './exec-lock.js';
import { isSupervisorAlive, stopProcessGroup } from './interpreter-process.js';
import { type SessionsOptions, resolveSessionsDir } from './options.js';
import { isSessionProcessAlive } from './process-alive.js';
import { SessionError } from './session-error.js';
import { readMetadata, removeFiles, sessionPaths, writeMetadata } from './session-store.js';
import type { EndResult } from './types.js';

/**
 * Ends a session: stops an interpreter's process group (supervisor, interpreter and whatever it
 * started), removes the saved shell state, and marks the session terminated. metadata.json stays, so
 * later calls can say the session was terminated rather than that it never existed.
 */
export async function endSession(sessionId: string, options: SessionsOptions = {}): Promise<EndResult> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const paths = sessionPaths(resolveSessionsDir({ ...options, cwd }), sessionId);
  const before = await readMetadata(paths, sessionId);
  if (before.status === 'terminated') {
    throw new SessionError(`Session ${sessionId} was already terminated.`, { code: 'SESSION_ENDED' });
  }
  if (before.kind === 'interpreter') {
    // Stopping first also cuts short an exec in progress, which then releases the lock.
    if (isSupervisorAlive(before.pid, paths.directory) && before.pid !== undefined) await stopProcessGroup(before.pid);
    else if (before.interpreter_pid !== undefined && isSessionProcessAlive(before.interpreter_pid, before.argv[0])) {
      process.kill(before.interpreter_pid, 'SIGKILL');
    }
  }
  const release = await acquireExecLock(paths.lock);
  try {
    const metadata = await readMetadata(paths, sessionId);
    if (metadata.status === 'terminated') {
      throw new SessionError(`Session ${sessionId} was already terminated.`, { code: 'SESSION_ENDED' });
    }
    metadata.status = 'terminated';
    metadata.terminated_at = new Date().toISOString();
    await writeMetadata(paths, metadata);
    await removeFiles(paths.environment, paths.functions, paths.workDir, ...(metadata.socket_path ? [metadata.socket_path] : []));
  } finally {
    await release();
  }
  return { status: 'terminated', session_id: sessionId };
}
