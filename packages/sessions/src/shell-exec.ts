import { readFile, stat } from 'node:fs/promises';
import { findExecutable } from './find-executable.js';
import { SessionError } from './session-error.js';
import { shellDialect } from './session-kind.js';
import { type SessionPaths, removeFiles, writeFileAtomic } from './session-store.js';
import { parseStateDump, renderEnvironmentFile, sessionChanges } from './shell-state.js';
import { wrapperScript } from './shell-wrapper.js';
import { runShell } from './run-shell.js';
import type { ExecResult, SessionMetadata } from './types.js';

export interface ShellExecOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** One exec in a shell session: a fresh shell that loads the saved state, runs `code`, and reports back. */
export async function execInShell(
  metadata: SessionMetadata,
  paths: SessionPaths,
  code: string,
  options: ShellExecOptions,
): Promise<ExecResult> {
  const [shell = 'bash', ...shellArgs] = metadata.argv;
  const dialect = shellDialect(shell) ?? 'sh';
  const workDir = (await readFile(paths.workDir, 'utf8').catch(() => metadata.work_dir)).replace(/\n$/, '');
  const startIn = (await isDirectory(workDir)) ? workDir : (await isDirectory(metadata.work_dir)) ? metadata.work_dir : options.cwd;
  const envCommand = findExecutable('env', options.env, startIn) ?? '/usr/bin/env';
  const flags = dialect === 'bash' ? ['--noprofile', '--norc', ...shellArgs] : shellArgs;
  const run = await runShell({
    argv: [shell, ...flags, '-c', wrapperScript(dialect), 'delta-session', paths.environment, paths.functions, workDir, code, envCommand],
    cwd: startIn,
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
  });

  let notes = '';
  const dump = parseStateDump(run.state);
  if (dump !== undefined) {
    const state = sessionChanges(dump, options.env);
    await writeFileAtomic(paths.workDir, `${state.workDir}\n`);
    await writeFileAtomic(paths.environment, renderEnvironmentFile(state));
    if (dialect === 'bash' && state.functions.trim() !== '') await writeFileAtomic(paths.functions, state.functions);
    else await removeFiles(paths.functions);
    notes = state.notes.map((note) => `${note}\n`).join('');
  } else if (!run.timedOut) {
    notes =
      'delta-sessions: the shell ended without reporting its state (did the command replace it with `exec`, or set its own EXIT trap?); the working directory and variables were not saved.\n';
  }

  if (run.timedOut) {
    throw new SessionError(
      `The command ran longer than ${options.timeoutMs} ms and was stopped (SIGTERM to its process group, then SIGKILL); ${dump === undefined ? 'its changes to the session were lost' : 'the session keeps the state it reached'}. Pass a larger --timeout-ms for long commands.`,
      { code: 'EXEC_TIMEOUT', stdout: run.stdout, stderr: run.stderr + notes },
    );
  }
  return { stdout: run.stdout, stderr: run.stderr + notes, exit_code: run.exitCode, execution_time_ms: run.executionTimeMs };
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}
