import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { BoundedCapture, type CapturedOutput } from './bounded-capture.js';
import { captureFromFile } from './file-capture.js';

export interface RunCommandOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  /** The complete environment of the command: nothing is inherited that is not listed here. */
  env: Record<string, string>;
  /** Written to the command's stdin, which is then closed. Without it stdin is empty. */
  stdin?: string;
  /** Stop the command (its whole process group) after this long. */
  timeoutMs?: number;
  /** Stop the command (its whole process group) when this aborts. */
  signal?: AbortSignal;
  /** Complete stdout and stderr are written to these files as they arrive. */
  stdoutFile?: string;
  stderrFile?: string;
  /** Bytes kept in memory from the start and from the end of each stream (default 64 KiB). */
  captureBytes?: number;
  /** Between SIGTERM and SIGKILL when stopping (default 2000 ms). */
  killGraceMs?: number;
  /** Called once the command has started, with its pid (which is also its process group id). */
  onStart?: (pid: number) => void;
}

export interface CommandResult {
  /** The exit code, or null when the command was stopped by a signal or did not start. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** Why the command could not be started at all (for example, it does not exist). */
  startError?: string;
  durationMs: number;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
}

const STREAM_GRACE_MS = 250;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** An output going to a file is handed to the command as that file: it never passes through this process. */
function openOutput(file: string | undefined): number | undefined {
  return file === undefined ? undefined : openSync(file, 'w');
}

function collect(stream: Readable | null | undefined, capture: BoundedCapture): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => capture.push(chunk));
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: NodeJS.ErrnoException;
}

function ended(child: ChildProcess): Promise<Ended> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
  });
}

/**
 * Runs one command without a shell, in its own process group, writing its output to disk and keeping a
 * bounded head and tail in memory. It never throws for the command's own failures: they are in the result.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const captureBytes = options.captureBytes ?? 64 * 1024;
  const stdoutCapture = new BoundedCapture(captureBytes);
  const stderrCapture = new BoundedCapture(captureBytes);
  const started = performance.now();
  const stdoutFd = openOutput(options.stdoutFile);
  let stderrFd: number | undefined;
  let child: ChildProcess;
  try {
    stderrFd = openOutput(options.stderrFile);
    child = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', stdoutFd ?? 'pipe', stderrFd ?? 'pipe'],
    });
  } finally {
    // The command holds its own copies; ours are not needed once it is started.
    if (stdoutFd !== undefined) closeSync(stdoutFd);
    if (stderrFd !== undefined) closeSync(stderrFd);
  }
  const end = ended(child);
  if (child.pid !== undefined) options.onStart?.(child.pid);
  if (child.stdin) {
    // A command that exits without reading its input is not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin);
  }

  let timedOut = false;
  let aborted = false;
  let forceTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup(child.pid, 'SIGTERM');
    forceTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.killGraceMs ?? 2000);
    forceTimer.unref();
  };
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const streams = Promise.all([collect(child.stdout, stdoutCapture), collect(child.stderr, stderrCapture)]);
  const result = await end;
  // A background process the command started may hold a pipe open for ever: once the command itself has
  // exited, its output gets a short grace period, then our ends of the pipes are closed.
  if (child.stdout || child.stderr) await Promise.race([streams, delay(STREAM_GRACE_MS)]);
  child.stdout?.destroy();
  child.stderr?.destroy();
  if (timer) clearTimeout(timer);
  if (forceTimer) clearTimeout(forceTimer);
  options.signal?.removeEventListener('abort', onAbort);

  return {
    exitCode: result.error ? null : result.code,
    signal: result.signal,
    timedOut,
    aborted,
    ...(result.error ? { startError: describeStartError(result.error, options.file) } : {}),
    durationMs: performance.now() - started,
    stdout: options.stdoutFile === undefined ? stdoutCapture.result() : captureFromFile(options.stdoutFile, captureBytes),
    stderr: options.stderrFile === undefined ? stderrCapture.result() : captureFromFile(options.stderrFile, captureBytes),
  };
}

function describeStartError(error: NodeJS.ErrnoException, file: string): string {
  if (error.code === 'ENOENT') return `command not found: ${file}`;
  if (error.code === 'EACCES') return `permission denied: ${file} is not executable`;
  return error.message || `could not start ${file}`;
}
