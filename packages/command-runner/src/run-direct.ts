import { closeSync, openSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { writeProcessFile } from '@delta/process-identity';
import { BoundedCapture, type CapturedOutput } from './bounded-capture.js';
import { captureFromFile } from './file-capture.js';
import type { CommandResult, RunCommandOptions } from './run-command.js';
import { type GroupChild, startInGroup } from './start-in-group.js';

const STREAM_GRACE_MS = 250;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
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

function captured(file: string | undefined, capture: BoundedCapture, captureBytes: number): CapturedOutput {
  return file === undefined ? capture.result() : captureFromFile(file, captureBytes);
}

/** Starts the command by forking this process. */
export async function runDirect(options: RunCommandOptions): Promise<CommandResult> {
  const captureBytes = options.captureBytes ?? 64 * 1024;
  const stdoutCapture = new BoundedCapture(captureBytes);
  const stderrCapture = new BoundedCapture(captureBytes);
  const startedAt = performance.now();
  const stdoutFd = openOutput(options.stdoutFile);
  let stderrFd: number | undefined;
  const inherited: number[] = [];
  let started: GroupChild;
  try {
    stderrFd = openOutput(options.stderrFile);
    for (const file of options.inheritFiles ?? []) inherited.push(openSync(file, 'r'));
    started = startInGroup(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', stdoutFd ?? 'pipe', stderrFd ?? 'pipe', ...inherited],
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      killGraceMs: options.killGraceMs,
    });
  } finally {
    // The command holds its own copies; ours are not needed once it is started.
    if (stdoutFd !== undefined) closeSync(stdoutFd);
    if (stderrFd !== undefined) closeSync(stderrFd);
    for (const fd of inherited) closeSync(fd);
  }
  const { child } = started;
  if (child.pid !== undefined && options.processFile !== undefined) writeProcessFile(options.processFile, child.pid);
  if (child.pid !== undefined) options.onStart?.(child.pid);
  if (child.stdin) {
    // A command that exits without reading its input is not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin);
  }

  const streams = Promise.all([collect(child.stdout, stdoutCapture), collect(child.stderr, stderrCapture)]);
  const result = await started.exited;
  // No process outlives the command: what it left running in its process group is stopped.
  started.signalGroup('SIGKILL');
  // A background process the command started may hold a pipe open for ever: once the command itself has
  // exited, its output gets a short grace period, then our ends of the pipes are closed.
  if (child.stdout || child.stderr) await Promise.race([streams, delay(STREAM_GRACE_MS)]);
  child.stdout?.destroy();
  child.stderr?.destroy();

  return {
    exitCode: result.error ? null : result.code,
    signal: result.signal,
    timedOut: result.timedOut,
    aborted: result.aborted,
    ...(result.error ? { startError: describeStartError(result.error, options.file) } : {}),
    durationMs: performance.now() - startedAt,
    stdout: captured(options.stdoutFile, stdoutCapture, captureBytes),
    stderr: captured(options.stderrFile, stderrCapture, captureBytes),
  };
}

export function describeStartError(error: NodeJS.ErrnoException, file: string): string {
  if (error.code === 'ENOENT') return `command not found: ${file}`;
  if (error.code === 'EACCES') return `permission denied: ${file} is not executable`;
  return error.message || `could not start ${file}`;
}
