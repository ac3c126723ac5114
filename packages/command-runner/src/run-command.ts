import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { writeProcessFile } from '@delta/process-identity';
import { BoundedCapture, type CapturedOutput } from './bounded-capture.js';
import { captureFromFile } from './file-capture.js';
import type { CommandLauncher, LaunchedCommand, LaunchRequest } from './launcher.js';
import type { RunSandbox } from './sandbox/run-sandbox.js';

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
  /**
   * Once the command has started, `{"pid":…,"start_ticks":"…"}` is written here (start_ticks from
   * /proc/<pid>/stat, where there is one): what identifies it to stopProcessGroupIfSame later.
   */
  processFile?: string;
  /**
   * Start the command through this launcher process instead of forking this one (see CommandLauncher),
   * when both outputs go to files and the launcher is alive; otherwise it is started directly.
   */
  launcher?: CommandLauncher;
  /** Run the command inside this run's sandbox (see RunSandbox); without it, with the user's rights. */
  sandbox?: RunSandbox;
  /**
   * Files opened for reading and given to the command as file descriptors 3, 4, … (what a command
   * wrapped by RunSandbox.wrap joins the run's namespaces with).
   */
  inheritFiles?: readonly string[];
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
/** How long after SIGKILL a sandboxed command may take to be reported ended before its sandbox is ended. */
const LAST_RESORT_MS = 10_000;

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
  if (options.sandbox) return runSandboxed(options, options.sandbox);
  return runUnsandboxed(options);
}

function runUnsandboxed(options: RunCommandOptions): Promise<CommandResult> {
  const { launcher, stdoutFile, stderrFile } = options;
  if (launcher?.alive && stdoutFile !== undefined && stderrFile !== undefined) {
    return runLaunched(options, launcher, stdoutFile, stderrFile);
  }
  return runDirect(options);
}

/** Stops a command's process group on timeout or abort: SIGTERM, then SIGKILL after the grace period. */
class Supervisor {
  timedOut = false;
  aborted = false;
  /** The last resort was used: the launcher was ended (its message says so). */
  gaveUp = false;
  private pid: number | undefined;
  private signal = (signal: NodeJS.Signals) => killGroup(this.pid, signal);
  private lastResort: (() => void) | undefined;
  private lastResortTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private forceTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => {
    this.aborted = true;
    this.stop();
  };

  constructor(private readonly options: RunCommandOptions) {
    this.timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            this.timedOut = true;
            this.stop();
          }, options.timeoutMs);
    if (options.signal?.aborted) this.onAbort();
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * The command's pid once known, and how to signal its process group when that is not this process's
   * to do (a sandboxed command, whose pid is of the sandbox, and what to do when that did not stop it):
   * a stop asked for before it was known happens now.
   */
  started(pid: number | undefined): void {
    this.pid = pid;
    if (pid !== undefined && this.stopping) this.signalGroup();
  }

  /**
   * Before the command's start is reported: how to signal a sandboxed command, and the last resort. A
   * launcher stopped by its tool before it said the pid would otherwise leave a stop waiting for ever.
   */
  through(signal: (signal: NodeJS.Signals) => void, lastResort: (() => void) | undefined): void {
    this.signal = signal;
    this.lastResort = lastResort;
    if (this.stopping) this.armLastResort();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.forceTimer) clearTimeout(this.forceTimer);
    if (this.lastResortTimer) clearTimeout(this.lastResortTimer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    if (this.pid !== undefined) this.signalGroup();
    else this.armLastResort();
  }

  private signalGroup(): void {
    this.signal('SIGTERM');
    const graceMs = this.options.killGraceMs ?? 2000;
    this.forceTimer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    this.forceTimer.unref();
    this.armLastResort();
  }

  /**
   * Still running well after SIGKILL, or not even reported started well after the stop: whoever was to
   * act (the sandbox's launcher, which a tool can stop) did not, and the command's end would never be
   * reported.
   */
  private armLastResort(): void {
    if (!this.lastResort || this.lastResortTimer) return;
    const lastResort = this.lastResort;
    this.lastResortTimer = setTimeout(
      () => {
        this.gaveUp = true;
        lastResort();
      },
      (this.options.killGraceMs ?? 2000) + LAST_RESORT_MS,
    ).unref();
  }
}

function captured(file: string | undefined, capture: BoundedCapture, captureBytes: number): CapturedOutput {
  return file === undefined ? capture.result() : captureFromFile(file, captureBytes);
}

/** Starts the command by forking this process. */
async function runDirect(options: RunCommandOptions): Promise<CommandResult> {
  const captureBytes = options.captureBytes ?? 64 * 1024;
  const stdoutCapture = new BoundedCapture(captureBytes);
  const stderrCapture = new BoundedCapture(captureBytes);
  const started = performance.now();
  const stdoutFd = openOutput(options.stdoutFile);
  let stderrFd: number | undefined;
  const inherited: number[] = [];
  let child: ChildProcess;
  try {
    stderrFd = openOutput(options.stderrFile);
    for (const file of options.inheritFiles ?? []) inherited.push(openSync(file, 'r'));
    child = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', stdoutFd ?? 'pipe', stderrFd ?? 'pipe', ...inherited],
    });
  } finally {
    // The command holds its own copies; ours are not needed once it is started.
    if (stdoutFd !== undefined) closeSync(stdoutFd);
    if (stderrFd !== undefined) closeSync(stderrFd);
    for (const fd of inherited) closeSync(fd);
  }
  const end = ended(child);
  const supervisor = new Supervisor(options);
  supervisor.started(child.pid);
  if (child.pid !== undefined && options.processFile !== undefined) writeProcessFile(options.processFile, child.pid);
  if (child.pid !== undefined) options.onStart?.(child.pid);
  if (child.stdin) {
    // A command that exits without reading its input is not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin);
  }

  const streams = Promise.all([collect(child.stdout, stdoutCapture), collect(child.stderr, stderrCapture)]);
  const result = await end;
  // No process outlives the command: what it left running in its process group is stopped (see killGroup).
  killGroup(child.pid, 'SIGKILL');
  // A background process the command started may hold a pipe open for ever: once the command itself has
  // exited, its output gets a short grace period, then our ends of the pipes are closed.
  if (child.stdout || child.stderr) await Promise.race([streams, delay(STREAM_GRACE_MS)]);
  child.stdout?.destroy();
  child.stderr?.destroy();
  supervisor.dispose();

  return {
    exitCode: result.error ? null : result.code,
    signal: result.signal,
    timedOut: supervisor.timedOut,
    aborted: supervisor.aborted,
    ...(result.error ? { startError: describeStartError(result.error, options.file) } : {}),
    durationMs: performance.now() - started,
    stdout: captured(options.stdoutFile, stdoutCapture, captureBytes),
    stderr: captured(options.stderrFile, stderrCapture, captureBytes),
  };
}

/** What a launcher, the engine's or the one in the run's sandbox, is sent to start the command. */
function launchRequest(
  options: RunCommandOptions,
  stdoutFile: string,
  stderrFile: string,
): Omit<LaunchRequest, 'processFile' | 'inheritFiles'> {
  return {
    file: options.file,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    stdoutFile,
    stderrFile,
  };
}

/** Starts the command through the launcher process; the result is the same as runDirect's. */
function runLaunched(
  options: RunCommandOptions,
  launcher: CommandLauncher,
  stdoutFile: string,
  stderrFile: string,
): Promise<CommandResult> {
  const launched = launcher.launch({
    ...launchRequest(options, stdoutFile, stderrFile),
    ...(options.processFile === undefined ? {} : { processFile: options.processFile }),
    ...(options.inheritFiles === undefined ? {} : { inheritFiles: options.inheritFiles }),
  });
  return followLaunched(options, launched, stdoutFile, stderrFile, false);
}

/**
 * Runs the command through the run's sandbox: a spawn by the launcher inside it (see RunSandbox), its
 * output written into `stdoutFile` and `stderrFile`, which a sandboxed command needs. No process file is
 * written (see RunSandbox), and a sandbox that could not start is the command's start error: it is never
 * run outside instead.
 */
function runSandboxed(options: RunCommandOptions, sandbox: RunSandbox): Promise<CommandResult> {
  const { stdoutFile, stderrFile } = options;
  if (stdoutFile === undefined || stderrFile === undefined) {
    throw new TypeError('A sandboxed command writes its output to files: give runCommand both stdoutFile and stderrFile.');
  }
  const launched = sandbox.launch(launchRequest(options, stdoutFile, stderrFile));
  return followLaunched(options, launched, stdoutFile, stderrFile, true);
}

/** Follows a launched command to its end; the result is the same as runDirect's. */
async function followLaunched(
  options: RunCommandOptions,
  launched: LaunchedCommand & { finish?: () => void; lastResort?: () => void },
  stdoutFile: string,
  stderrFile: string,
  sandboxed: boolean,
): Promise<CommandResult> {
  const captureBytes = options.captureBytes ?? 64 * 1024;
  const started = performance.now();
  const supervisor = new Supervisor(options);
  // A sandboxed command's pid is of the sandbox's PID namespace: only the launcher in there can signal it.
  if (sandboxed) supervisor.through((signal) => launched.kill(signal), launched.lastResort);
  const pid = await launched.started;
  supervisor.started(pid);
  if (pid !== undefined) options.onStart?.(pid);
  const outcome = await launched.ended;
  supervisor.dispose();
  launched.finish?.();
  if ('error' in outcome && outcome.error.code === 'ELAUNCHER' && pid === undefined && !supervisor.gaveUp) {
    // A launcher that died before starting the command (it could not run, say) leaves the job to us;
    // the sandbox's means the sandbox is gone, and nothing may run outside it instead.
    if (!sandboxed) return runDirect(options);
    outcome.error.message = `the run's sandbox (bubblewrap) is not running: ${outcome.error.message}`;
  }
  const durationMs = performance.now() - started;
  if ('error' in outcome) {
    const error = Object.assign(new Error(outcome.error.message), { code: outcome.error.code });
    // A file that could not be opened leaves no capture to read.
    const empty = { head: '', tail: '', totalBytes: 0, omittedBytes: 0 };
    const read = (file: string) => (existsSync(file) ? captureFromFile(file, captureBytes) : empty);
    return {
      exitCode: null,
      signal: null,
      timedOut: supervisor.timedOut,
      aborted: supervisor.aborted,
      startError: describeStartError(error, options.file),
      durationMs,
      stdout: read(stdoutFile),
      stderr: read(stderrFile),
    };
  }
  if (outcome.processFileError) {
    // As runDirect throws when it cannot write it: the same error, naming the file.
    const { code, message, file } = outcome.processFileError;
    throw Object.assign(new Error(message), { code, path: file });
  }
  return {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: supervisor.timedOut,
    aborted: supervisor.aborted,
    durationMs,
    stdout: captureFromFile(stdoutFile, captureBytes),
    stderr: captureFromFile(stderrFile, captureBytes),
  };
}

function describeStartError(error: NodeJS.ErrnoException, file: string): string {
  if (error.code === 'ENOENT') return `command not found: ${file}`;
  if (error.code === 'EACCES') return `permission denied: ${file} is not executable`;
  return error.message || `could not start ${file}`;
}
