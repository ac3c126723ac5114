import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { Supervisor } from './supervisor.js';
import { signalProcessGroup } from './process-group.js';

export interface StartInGroupOptions {
  cwd: string;
  /** The complete environment of the command. */
  env: NodeJS.ProcessEnv;
  /** stdin, stdout, stderr and any further descriptors, as `node:child_process` takes them. */
  stdio: StdioOptions;
  /** Stop the command's whole process group after this long. */
  timeoutMs?: number | undefined;
  /** Stop the command's whole process group when this aborts. */
  signal?: AbortSignal | undefined;
  /** Between SIGTERM and SIGKILL when stopping (default 2000 ms). */
  killGraceMs?: number | undefined;
}

/** How a command started by startInGroup ended. */
export interface GroupExit {
  /** The exit code, or null when the command was stopped by a signal or did not start. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the command could not be started at all (ENOENT, EACCES, ...): it never ran. */
  error?: NodeJS.ErrnoException;
  timedOut: boolean;
  aborted: boolean;
}

export interface GroupChild {
  /** The started process, its pipes as `stdio` asked for. */
  child: ChildProcess;
  /** Resolves once the command has exited or failed to start; its timeout and abort are disarmed then. */
  exited: Promise<GroupExit>;
  /** Signals every process of the command's group (nothing when it did not start or is gone). */
  signalGroup(signal: NodeJS.Signals): void;
}

/**
 * Starts a command without a shell as the leader of a new process group, and stops that group (SIGTERM,
 * then SIGKILL after `killGraceMs`) when `timeoutMs` passes or `signal` aborts: the one place a child
 * process gets its group, its timeout and its group kill. What the group leaves running once the command
 * has exited is the caller's to decide (runCommand kills it; a session shell's background jobs live on).
 */
export function startInGroup(file: string, args: readonly string[], options: StartInGroupOptions): GroupChild {
  const child = spawn(file, [...args], { cwd: options.cwd, env: options.env, detached: true, stdio: options.stdio });
  const supervisor = new Supervisor(options);
  supervisor.started(child.pid);
  const exited = new Promise<GroupExit>((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null, error?: NodeJS.ErrnoException) => {
      supervisor.dispose();
      resolve({ code, signal, ...(error ? { error } : {}), timedOut: supervisor.timedOut, aborted: supervisor.aborted });
    };
    child.once('exit', (code, signal) => done(code, signal));
    child.once('error', (error: NodeJS.ErrnoException) => done(null, null, error));
  });
  return { child, exited, signalGroup: (signal) => signalProcessGroup(child.pid, signal) };
}
