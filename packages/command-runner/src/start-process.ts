import { closeSync, openSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { describeStartError } from './run-direct.js';
import { type GroupChild, startInGroup } from './start-in-group.js';

export interface StartProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  /** The complete environment of the process: nothing is inherited that is not listed here. */
  env: Record<string, string>;
  /** Its stderr is appended to this file, never to this process's. */
  stderrFile: string;
  /** Files opened for reading and given to it as file descriptors 3, 4, … in this order. */
  inheritFiles?: readonly string[];
  /** Data given to it on pipes, as the file descriptors after those of inheritFiles, in this order. */
  inheritData?: readonly Buffer[];
  /** Between SIGTERM and SIGKILL when stopping (default 2000 ms). */
  killGraceMs?: number;
}

/** A long-lived process (a server) in its own process group, spoken to on its stdin and stdout. */
export interface StartedProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves with how it ended (`exit 1`, `SIGKILL`) once it has, and its stdout is read to the end. */
  readonly ended: Promise<string>;
  /** Ends its whole process group: stdin closed and SIGTERM, SIGKILL after the grace period. Resolves with `ended`. */
  stop(): Promise<string>;
}

function openAll(options: StartProcessOptions): { stderr: number; inherited: number[] } {
  const stderr = openSync(options.stderrFile, 'a');
  const inherited: number[] = [];
  try {
    for (const file of options.inheritFiles ?? []) inherited.push(openSync(file, 'r'));
  } catch (error) {
    closeSync(stderr);
    for (const fd of inherited) closeSync(fd);
    throw error;
  }
  return { stderr, inherited };
}

function started({ child, signalGroup }: GroupChild, options: StartProcessOptions): StartedProcess {
  const ended = new Promise<string>((resolve) => {
    child.once('close', (code, signal) => resolve(signal ?? `exit ${code}`));
  });
  // A process that exits without reading its input, or is stopped mid-write, is not an error of ours.
  child.stdin!.on('error', () => undefined);
  child.stdout!.on('error', () => undefined);
  const pid = child.pid!;
  return {
    pid,
    stdin: child.stdin!,
    stdout: child.stdout!,
    ended,
    async stop() {
      child.stdin!.end();
      signalGroup('SIGTERM');
      const timer = setTimeout(() => {
        signalGroup('SIGKILL');
        // A process that left the group may hold the pipe open: ours is closed, so that `ended` comes.
        child.stdout!.destroy();
      }, options.killGraceMs ?? 2000);
      const ending = await ended;
      clearTimeout(timer);
      // What it started and left in its group goes too.
      signalGroup('SIGKILL');
      return ending;
    },
  };
}

/**
 * Starts a long-lived process (an MCP stdio server, say) without a shell, in its own process group, with
 * pipes for its stdin and stdout and its stderr appended to a file. Never rejects for the process's own
 * failures: one that cannot be started gives `startError` (`command not found: x`).
 */
export async function startProcess(options: StartProcessOptions): Promise<StartedProcess | { startError: string }> {
  let files: { stderr: number; inherited: number[] };
  try {
    files = openAll(options);
  } catch (error) {
    return { startError: (error as Error).message };
  }
  let group: GroupChild;
  try {
    const pipes = (options.inheritData ?? []).map(() => 'pipe' as const);
    // Its own process group, through the one place that starts child processes; no timeout: it is stopped.
    group = startInGroup(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', files.stderr, ...files.inherited, ...pipes],
      killGraceMs: options.killGraceMs,
    });
  } catch (error) {
    // An argument Node refuses (a NUL byte in it, say).
    return { startError: describeStartError(error as NodeJS.ErrnoException, options.file) };
  } finally {
    // The process holds its own copies.
    closeSync(files.stderr);
    for (const fd of files.inherited) closeSync(fd);
  }
  const { child } = group;
  (options.inheritData ?? []).forEach((data, index) => {
    const pipe = child.stdio[3 + files.inherited.length + index] as Writable;
    pipe.on('error', () => undefined);
    pipe.end(data);
  });
  return new Promise((resolve) => {
    child.once('spawn', () => resolve(started(group, options)));
    // After the start, an error is of a signal that could not be sent: its end is reported all the same.
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ startError: describeStartError(error, options.file) }));
  });
}
