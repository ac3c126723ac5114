import { followLaunched } from './follow-launched.js';
import type { CommandLauncher, LaunchRequest } from './launcher.js';
import { runDirect } from './run-direct.js';
import type { RunSandbox } from './sandbox/run-sandbox.js';
import type { CapturedOutput } from './bounded-capture.js';

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
async function runSandboxed(options: RunCommandOptions, sandbox: RunSandbox): Promise<CommandResult> {
  const { stdoutFile, stderrFile } = options;
  if (stdoutFile === undefined || stderrFile === undefined) {
    throw new TypeError('A sandboxed command writes its output to files: give runCommand both stdoutFile and stderrFile.');
  }
  await sandbox.ready();
  const launched = sandbox.launch(launchRequest(options, stdoutFile, stderrFile));
  return followLaunched(options, launched, stdoutFile, stderrFile, true);
}
