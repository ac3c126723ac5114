import { resolve } from 'node:path';
import { acquireExecLock } from './exec-lock.js';
import { execInInterpreter } from './interpreter-client.js';
import { isSupervisorAlive, socketPathFor } from './interpreter-process.js';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  type SessionsOptions,
  resolvePositiveInteger,
  resolveSessionsDir,
} from './options.js';
import { SessionError } from './session-error.js';
import { checkedSessionPaths, readMetadata, writeMetadata } from './session-store.js';
import { execInShell } from './shell-exec.js';
import type { ExecResult, SessionMetadata } from './types.js';

export interface ExecOptions extends SessionsOptions {
  /** Default 60 000 ms, or `DELTA_SESSIONS_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** The cap on each of stdout and stderr. Default 1 MiB, or `DELTA_SESSIONS_MAX_OUTPUT_BYTES`. */
  maxOutputBytes?: number;
}

/**
 * Runs `code` in the session and answers its output. Execs on one session run one at a time, in
 * whatever process they come from (a lock file in the session directory). A timeout is an error
 * (`EXEC_TIMEOUT`) that carries the output produced so far.
 */
export async function execInSession(sessionId: string, code: string, options: ExecOptions = {}): Promise<ExecResult> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const timeoutMs = resolvePositiveInteger(options.timeoutMs, env, 'DELTA_SESSIONS_TIMEOUT_MS', DEFAULT_TIMEOUT_MS);
  const maxOutputBytes = resolvePositiveInteger(options.maxOutputBytes, env, 'DELTA_SESSIONS_MAX_OUTPUT_BYTES', DEFAULT_MAX_OUTPUT_BYTES);
  const paths = await checkedSessionPaths(resolveSessionsDir({ ...options, cwd }), sessionId);
  checkUsable(await readMetadata(paths, sessionId), paths.directory);

  // Another exec holds the lock at most its own timeout; this one waits no longer than it would run.
  const release = await acquireExecLock(paths.lock, { waitMs: timeoutMs });
  try {
    const metadata = await readMetadata(paths, sessionId);
    checkUsable(metadata, paths.directory);
    const record = async () => {
      metadata.last_executed_at = new Date().toISOString();
      metadata.execution_count += 1;
      await writeMetadata(paths, metadata);
    };
    try {
      const result =
        metadata.kind === 'shell'
          ? await execInShell(metadata, paths, code, { env, cwd, timeoutMs, maxOutputBytes })
          : await execInInterpreter(socketPathFor(paths.directory), sessionId, {
              type: 'exec',
              code,
              timeout_ms: timeoutMs,
              max_output_bytes: maxOutputBytes,
            });
      await record();
      return result;
    } catch (error) {
      if (SessionError.isInstance(error) && error.code === 'EXEC_TIMEOUT') await record();
      throw error;
    }
  } finally {
    await release();
  }
}

function checkUsable(metadata: SessionMetadata, directory: string): void {
  if (metadata.status === 'terminated') {
    throw new SessionError(`Session ${metadata.session_id} was terminated; start a new one with \`delta-sessions start\`.`, {
      code: 'SESSION_ENDED',
    });
  }
  if (metadata.kind === 'interpreter' && !isSupervisorAlive(metadata, directory)) {
    throw new SessionError(
      `Session ${metadata.session_id} is dead: its session process (pid ${metadata.pid ?? 'unknown'}) is gone, killed or ended with its interpreter (${metadata.command}). Its state is lost; end it and start a new one.`,
      { code: 'SESSION_DEAD' },
    );
  }
}
