import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { BoundedCapture, type CapturedOutput } from './bounded-capture.js';

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
  /** Complete stdout and stderr are streamed to these files as they arrive. */
  stdoutFile?: string;
  stderrFile?: string;
  /** Bytes kept in memory from the start and from the end of each stream (default 64 KiB). */
  captureBytes?: number;
  /** Between SIGTERM and SIGKILL when stopping (default 2000 ms). */
  killGraceMs?: number;
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

function collect(stream: Readable | null | undefined, capture: BoundedCapture, file: WriteStream | undefined): Promise<void> {
  if (!stream) return Promise.resolve();
  stream.on('data', (chunk: Buffer) => capture.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));
  if (file) stream.pipe(file);
  return finished(stream).catch(() => undefined);
}

/**
 * Runs one command without a shell, in its own process group, streaming its output to disk and keeping
 * a bounded head and tail in memory. It never throws for the command's own failures: they are in the result.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const { execa } = await import('execa');
  const captureBytes = options.captureBytes ?? 64 * 1024;
  const stdoutCapture = new BoundedCapture(captureBytes);
  const stderrCapture = new BoundedCapture(captureBytes);
  const stdoutFile = options.stdoutFile ? createWriteStream(options.stdoutFile) : undefined;
  const stderrFile = options.stderrFile ? createWriteStream(options.stderrFile) : undefined;
  const started = performance.now();

  const subprocess = execa(options.file, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    buffer: false,
    reject: false,
    encoding: 'buffer',
    stripFinalNewline: false,
    ...(options.stdin === undefined ? { stdin: 'ignore' as const } : { input: options.stdin }),
  });

  let timedOut = false;
  let aborted = false;
  let forceTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup(subprocess.pid, 'SIGTERM');
    forceTimer = setTimeout(() => killGroup(subprocess.pid, 'SIGKILL'), options.killGraceMs ?? 2000);
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

  const streams = Promise.all([
    collect(subprocess.stdout as Readable | null, stdoutCapture, stdoutFile),
    collect(subprocess.stderr as Readable | null, stderrCapture, stderrFile),
  ]);
  // A background process the command started may hold its stdout open for ever: once the command itself
  // has exited, its output gets a short grace period, then our ends of the pipes are closed.
  const exited = new Promise<void>((resolve) => subprocess.once('exit', () => resolve()));
  await Promise.race([streams, exited.then(() => delay(STREAM_GRACE_MS))]);
  subprocess.stdout?.destroy();
  subprocess.stderr?.destroy();
  const result = await subprocess;
  if (timer) clearTimeout(timer);
  if (forceTimer) clearTimeout(forceTimer);
  options.signal?.removeEventListener('abort', onAbort);
  await Promise.all([closeFile(stdoutFile), closeFile(stderrFile)]);

  const startError =
    result.exitCode === undefined && result.signal === undefined && result.failed
      ? describeStartError(result as unknown as { code?: string; originalMessage?: string }, options.file)
      : undefined;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut,
    aborted,
    ...(startError === undefined ? {} : { startError }),
    durationMs: performance.now() - started,
    stdout: stdoutCapture.result(),
    stderr: stderrCapture.result(),
  };
}

function closeFile(file: WriteStream | undefined): Promise<void> {
  if (!file) return Promise.resolve();
  return new Promise((resolve) => {
    if (file.closed) return resolve();
    file.end(() => resolve());
  });
}

function describeStartError(error: { code?: string; originalMessage?: string }, file: string): string {
  if (error.code === 'ENOENT') return `command not found: ${file}`;
  if (error.code === 'EACCES') return `permission denied: ${file} is not executable`;
  return error.originalMessage ?? `could not start ${file}`;
}
