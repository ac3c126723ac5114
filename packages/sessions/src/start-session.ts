import { stopProcessGroup } from '@delta/command-runner';
import { mkdir, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findExecutable } from './find-executable.js';
import { isSupervisorAlive, socketPathFor, startSupervisor } from './interpreter-process.js';
import { type SessionsOptions, resolvePositiveInteger, resolveSessionsDir } from './options.js';
import { SessionError } from './session-error.js';
import { newSessionId } from './session-id.js';
import { newSessionMarker } from './session-proof.js';
import { sessionKind } from './session-kind.js';
import { checkNotALink, createSessionsDir, sessionPaths, writeFileAtomic, writeMetadata } from './session-store.js';
import { hasProcFileSystem, processStartTicks } from '@delta/process-identity';
import type { SessionMetadata, StartResult } from './types.js';

export interface StartSessionOptions extends SessionsOptions {
  /** The shell or interpreter, as argv: `['bash']` (the default), `['python3']`, `['node']`... */
  command?: string[];
  /** How long an interpreter gets to come up. Default 15 000 ms. */
  startTimeoutMs?: number;
}

/**
 * Starts a session in `cwd`. Shells (bash, sh) only get a directory with their state; any other
 * command becomes a long-lived interpreter owned by a detached supervisor process.
 */
export async function startSession(options: StartSessionOptions = {}): Promise<StartResult> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const argv = options.command && options.command.length > 0 ? options.command : ['bash'];
  const [command = ''] = argv;
  if (command.trim() === '') {
    throw new SessionError('The session command is empty; give a shell or interpreter such as bash, sh, python3 or node.', {
      code: 'INVALID_ARGUMENT',
    });
  }
  if (
    !(await stat(cwd).then(
      (stats) => stats.isDirectory(),
      () => false,
    ))
  ) {
    throw new SessionError(`Cannot start a session in ${cwd}: it is not a directory.`, { code: 'INVALID_ARGUMENT' });
  }
  if (findExecutable(command, env, cwd) === undefined) {
    throw new SessionError(`Cannot start a session: "${command}" is not an executable on PATH. Install it, or give its full path.`, {
      code: 'COMMAND_NOT_FOUND',
    });
  }
  const startTimeoutMs = resolvePositiveInteger(options.startTimeoutMs, {}, 'startTimeoutMs', 15_000);
  const sessionsDir = resolveSessionsDir({ ...options, cwd });
  await checkNotALink(sessionsDir, 'The sessions directory');
  await createSessionsDir(sessionsDir);
  const sessionId = newSessionId();
  const paths = sessionPaths(sessionsDir, sessionId);
  await mkdir(paths.directory, { mode: 0o700 });

  const metadata: SessionMetadata = {
    schema_version: 1,
    session_id: sessionId,
    command: argv.join(' '),
    argv,
    kind: sessionKind(command),
    created_at: new Date().toISOString(),
    last_executed_at: null,
    status: 'active',
    work_dir: cwd,
    execution_count: 0,
  };
  try {
    if (metadata.kind === 'shell') {
      await writeFileAtomic(paths.workDir, `${cwd}\n`);
    } else {
      metadata.socket_path = socketPathFor(paths.directory);
      metadata.marker = newSessionMarker();
      await writeMetadata(paths, metadata);
      const started = await startSupervisor(paths.directory, cwd, env, startTimeoutMs, metadata.marker);
      metadata.pid = started.pid;
      metadata.interpreter_pid = started.interpreterPid;
      const startTicks = processStartTicks(started.pid);
      const interpreterStartTicks = processStartTicks(started.interpreterPid);
      if (startTicks !== undefined) metadata.start_ticks = startTicks;
      if (interpreterStartTicks !== undefined) metadata.interpreter_start_ticks = interpreterStartTicks;
      if (hasProcFileSystem() && !isSupervisorAlive(metadata, paths.directory)) {
        await stopProcessGroup(started.pid);
        throw new SessionError(`The session process (pid ${started.pid}) went away as it started.`, { code: 'START_FAILED' });
      }
    }
    await writeMetadata(paths, metadata);
  } catch (error) {
    await rm(paths.directory, { recursive: true, force: true });
    throw error;
  }
  return { session_id: sessionId, command: metadata.command, work_dir: cwd, status: 'active' };
}
