import { stopProcessGroup } from '@delta/command-runner';
import { join, resolve } from 'node:path';
import { acquireExecLock } from './exec-lock.js';
import { interpreterClaim, socketPathFor, supervisorClaim } from './interpreter-process.js';
import { type SessionsOptions, resolveSessionsDir } from './options.js';
import { SessionError } from './session-error.js';
import { proveSessionProcess } from './session-proof.js';
import { checkedSessionPaths, readMetadata, removeFiles, writeMetadata } from './session-store.js';
import type { EndResult, LeftAloneResult } from './types.js';

/** How long `end` waits for an exec in progress to release the session's lock. */
export const defaultEndLockWaitMs = 10_000;

export interface EndOptions extends SessionsOptions {
  /** How long to wait for the session's exec lock before giving up (`EXEC_TIMEOUT`). Default 10 000 ms. */
  lockWaitMs?: number;
}

/**
 * Ends a session: stops an interpreter's process group (supervisor, interpreter and whatever it
 * started), removes the saved shell state, and marks the session terminated. metadata.json stays, so
 * later calls can say the session was terminated rather than that it never existed. A session whose
 * files cannot be trusted (see endSessionIfProven) is refused with `SESSION_UNTRUSTED`.
 */
export async function endSession(sessionId: string, options: EndOptions = {}): Promise<EndResult> {
  const outcome = await endSessionIfProven(sessionId, options);
  if (outcome.status === 'left_alone') {
    throw new SessionError(`Session ${sessionId} was left alone, nothing killed or removed: ${outcome.reason}.`, {
      code: 'SESSION_UNTRUSTED',
    });
  }
  return outcome;
}

/**
 * Ends a session only as far as it can prove the session's files tell the truth: its directory is a real
 * one (no link), the processes it signals carry the session's marker and start time (session-proof.ts),
 * and the files it removes are inside the session's directory. Otherwise nothing is killed or removed,
 * and the answer says why.
 */
export async function endSessionIfProven(sessionId: string, options: EndOptions = {}): Promise<EndResult | LeftAloneResult> {
  const cwd = resolve(options.cwd ?? process.cwd());
  let paths;
  try {
    paths = await checkedSessionPaths(resolveSessionsDir({ ...options, cwd }), sessionId);
  } catch (error) {
    if (SessionError.isInstance(error) && error.code === 'SESSION_UNTRUSTED') return leftAlone(sessionId, error.message);
    throw error;
  }
  const before = await readMetadata(paths, sessionId);
  if (before.status === 'terminated') {
    throw new SessionError(`Session ${sessionId} was already terminated.`, { code: 'SESSION_ENDED' });
  }
  if (before.kind === 'interpreter') {
    const supervisor = proveSessionProcess(supervisorClaim(before, paths.directory));
    const interpreter = proveSessionProcess(interpreterClaim(before, paths.directory));
    // A pid that runs but is not provably ours: forged, or recycled. Leave every process alone.
    for (const [what, proof] of [
      ['session process', supervisor],
      ['interpreter', interpreter],
    ] as const) {
      if (!proof.proven && proof.running) return leftAlone(sessionId, `the ${what} its metadata.json names: ${proof.reason}`);
    }
    // Stopping first also cuts short an exec in progress, which then releases the lock.
    if (supervisor.proven) await stopProcessGroup(supervisor.pid);
    else if (interpreter.proven) process.kill(interpreter.pid, 'SIGKILL');
  }
  const release = await acquireExecLock(paths.lock, { waitMs: options.lockWaitMs ?? defaultEndLockWaitMs });
  try {
    const metadata = await readMetadata(paths, sessionId);
    if (metadata.status === 'terminated') {
      throw new SessionError(`Session ${sessionId} was already terminated.`, { code: 'SESSION_ENDED' });
    }
    metadata.status = 'terminated';
    metadata.terminated_at = new Date().toISOString();
    await writeMetadata(paths, metadata);
    // The socket a supervisor listens on is where the session directory says, never where metadata.json
    // says; one outside the directory (a long path, in the temporary directory) its supervisor removes itself.
    const socket = socketPathFor(paths.directory);
    const socketInside = socket === join(paths.directory, 'repl.sock');
    await removeFiles(paths.environment, paths.functions, paths.workDir, ...(socketInside ? [socket] : []));
  } finally {
    await release();
  }
  return { status: 'terminated', session_id: sessionId };
}

function leftAlone(sessionId: string, reason: string): LeftAloneResult {
  return { status: 'left_alone', session_id: sessionId, reason: reason.replace(/\.$/, '') };
}
