import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { startInGroup } from '@delta/command-runner';
import { CappedOutput } from './capped-output.js';
import { SessionError } from './session-error.js';

/** After the shell exits, how long to wait for its pipes to close (a background job may hold them). */
const drainGraceMs = 100;
/** After SIGTERM on timeout, how long before SIGKILL. */
const terminateGraceMs = 1_000;
/** A state report larger than this is not believed (the environment itself is limited to a few MB). */
const maxStateBytes = 16 * 1024 * 1024;

export interface ShellRun {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
}

export interface ShellRunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  executionTimeMs: number;
  timedOut: boolean;
  /** What the wrapper wrote on fd 3; empty when the shell died before reporting. */
  state: Buffer;
}

/**
 * Runs one shell process in its own process group with stdin closed, capping stdout and stderr and
 * collecting fd 3. On timeout the whole group gets SIGTERM (bash still reports its state), then SIGKILL
 * (command-runner's startInGroup). A background job the shell started is left running.
 */
export async function runShell(run: ShellRun): Promise<ShellRunResult> {
  const [file = 'sh', ...args] = run.argv;
  const started = performance.now();
  const { child, exited } = startInGroup(file, args, {
    cwd: run.cwd,
    env: run.env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    timeoutMs: run.timeoutMs,
    killGraceMs: terminateGraceMs,
  });
  const stdout = new CappedOutput(run.maxOutputBytes);
  const stderr = new CappedOutput(run.maxOutputBytes);
  const state: Buffer[] = [];
  let stateBytes = 0;
  const streams = [child.stdio[1], child.stdio[2], child.stdio[3]] as Readable[];
  streams[0]?.on('data', (chunk: Buffer) => stdout.push(chunk));
  streams[1]?.on('data', (chunk: Buffer) => stderr.push(chunk));
  streams[2]?.on('data', (chunk: Buffer) => {
    stateBytes += chunk.length;
    if (stateBytes <= maxStateBytes) state.push(chunk);
  });
  const ended = Promise.all(streams.map((stream) => new Promise((resolve) => stream?.once('close', resolve))));

  const exit = await exited;
  if (exit.error) {
    for (const stream of streams) stream?.destroy();
    throw new SessionError(`Could not run ${file}: ${exit.error.message}.`, { code: 'COMMAND_NOT_FOUND', cause: exit.error });
  }
  const executionTimeMs = Math.round(performance.now() - started);
  // The grace timer is unref'd: when the pipes close at once (the usual case) it must not hold the process.
  await Promise.race([ended, sleep(drainGraceMs, undefined, { ref: false })]);
  for (const stream of streams) stream?.destroy();
  return {
    stdout: stdout.text(),
    stderr: stderr.text(),
    exitCode: exit.code ?? 128 + (exit.signal ? constants.signals[exit.signal] : 0),
    executionTimeMs,
    timedOut: exit.timedOut,
    state: stateBytes <= maxStateBytes ? Buffer.concat(state) : Buffer.alloc(0),
  };
}
