/** What the engine and a launcher process say to each other: a command to start, how it ended, the launcher's replies. */

/** What the launcher is asked to start: argv without a shell, its whole environment, and two output files. */
export interface LaunchRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  stdoutFile: string;
  stderrFile: string;
  /** Where the command's pid and start time are written once it has started (see RunCommandOptions). */
  processFile?: string;
  /** Files the launcher opens for reading and gives the command as file descriptors 3, 4, … (see RunCommandOptions). */
  inheritFiles?: readonly string[];
  /** The shell launcher's stdin, a file it opens (see shell-launcher.ts); `stdin` is for the node launcher only. */
  stdinFile?: string;
}

/** How a launched command ended: its exit, or why it could not start (`error`, with the errno code). */
export type LaunchOutcome =
  | {
      exitCode: number | null;
      signal: NodeJS.Signals | null;
      /** The command ran, but its process file could not be written (a full disk, say): the caller's error. */
      processFileError?: { code?: string; message: string; file: string };
    }
  | { error: { code?: string; message: string } };

export interface LaunchedCommand {
  /** Resolves with the pid (also its process group id) once started, or undefined when it did not start. */
  readonly started: Promise<number | undefined>;
  readonly ended: Promise<LaunchOutcome>;
  /** Sends `signal` to the command's process group, through the launcher (which sees its pid as it is). */
  kill(signal: NodeJS.Signals): void;
}

/**
 * How a launcher process is started: by default `node launcher-process.js`; the run's sandbox starts it
 * inside bubblewrap (see RunSandbox), where the pids it reports are those of the sandbox's PID namespace.
 */
export interface LauncherCommand {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  /** Further pipes after stdin, stdout and stderr (file descriptors 3, …), read through `childProcess`. */
  extraPipes?: number;
  /** The pids it reports are not this process's to signal: on its death nothing is killed from here. */
  pidsAreLocal?: boolean;
  /** What it speaks: JSON lines (launcher-process.js, the default) or shell lines (the sandbox's bash launcher, see shell-launcher.ts). */
  protocol?: 'json' | 'shell';
  /** Written to its stdin before anything else: what loads the shell launcher's program. */
  preamble?: string;
  /** Shell protocol: writes a file the launcher can read, returning its path as the launcher sees it (see encodeShellLaunch). */
  stageFile?: (text: string) => string;
}

/** A launcher's reply, as the node launcher says it (decodeShellReply turns the shell launcher's into one). */
export type Reply = {
  id: number;
  pid?: number;
  exit?: number | null;
  signal?: NodeJS.Signals | null;
  /** Shell protocol: the status as a shell reports it. */
  status?: number;
  error?: { code?: string; message: string };
  writeError?: string;
  /** With writeError: the errno code and the file, so that a full disk is named as such. */
  code?: string;
  file?: string;
  synced?: boolean;
};
