import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { constants } from 'node:os';
import { jsonStringPieces } from './json-pieces.js';
import { decodeShellReply, encodeShellLaunch } from './sandbox/shell-launcher.js';

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

/**
 * The launcher's program, launcher-process.js, sits next to this module: in src/ (tests), in the
 * package's dist/, and next to the chunks of a bundle that inlines this package (the delta CLI builds it
 * as a second entry). Missing, it is a packaging fault, said as such rather than hidden by a fallback.
 */
export function launcherProgramPath(): string {
  const path = fileURLToPath(new URL('./launcher-process.js', import.meta.url));
  if (!existsSync(path)) {
    throw new Error(
      `The tool launcher's program is missing: expected ${path}. Rebuild the package that bundles @delta/command-runner (it must emit launcher-process.js next to its chunks).`,
    );
  }
  return path;
}

/** The arguments of `node` that run the launcher's program. */
export function launcherArgs(): string[] {
  return ['--max-semi-space-size=1', launcherProgramPath()];
}

/** How long `close` waits for the launcher to exit. */
const CLOSE_WAIT_MS = 5_000;

/**
 * The longest line a launcher may send (without its newline): a shell reply is a few dozen characters, a
 * JSON one at most an error message naming a file. The sandbox's launcher shares its namespaces with the
 * tools, which can write on its output (pidfd_getfd): a longer line ends it, as a reply that is none does,
 * so that no tool can make this process hold (and scan) what it sends without a newline.
 */
const MAX_REPLY_CHARS = { shell: 1024, json: 1 << 20 } as const;

interface Pending {
  started: (pid: number | undefined) => void;
  ended: (outcome: LaunchOutcome) => void;
  pid?: number;
  /** Shell protocol: the signals sent to it (a shell reports a signal N as exit 128+N), and one sent before its pid was known. */
  signals?: Set<NodeJS.Signals>;
  early?: NodeJS.Signals;
  processFileError?: { code?: string; message: string; file: string };
}

/** One use of the launcher this process shares (see CommandLauncher.shared): `release` once done with it. */
export interface LauncherLease {
  readonly launcher: CommandLauncher;
  /** Lets go of it; the last lease to go closes the launcher (see `close`). Once is enough; more do nothing. */
  release(): Promise<void>;
}

/** The launcher every caller of `CommandLauncher.shared` in this process uses while it lives. */
let shared: CommandLauncher | undefined;

type Reply = {
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

/**
 * A small long-lived process that starts commands on this process's behalf.
 *
 * Starting a process from Node forks the whole parent: the kernel copies its page tables, and every page
 * the parent writes afterwards takes a copy-on-write fault. For an engine holding 100 MB that is several
 * milliseconds per command, growing with its memory; from the launcher (a bare `node`, a few MB of its
 * own) it is about one. Commands started this way behave exactly as with `runCommand` alone: no shell,
 * their own process group, the given environment only, output straight to the files.
 *
 * The launcher is a child of this process in its own process group; it exits when `close()` is called or
 * this process ends (after finishing what it was sent). If it dies, commands in flight end with an error and later ones are refused
 * (`alive` turns false), so a caller can fall back to starting them itself.
 *
 * One launcher serves every run of a process (`shared`): a batch of 256 runs holds one, not 256 (each
 * a node process of about 15 MB of its own memory). See docs/decisions/tool-launcher.md.
 */
export class CommandLauncher {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffered = '';
  private stderrTail = '';
  private dead: string | undefined;
  /** `ready` calls waiting for their sync reply (or for the launcher's end). */
  private syncs = new Map<number, () => void>();
  /** The leases of `shared` still held on this launcher. */
  private leases = 0;
  /** Shell protocol: the environments sent so far, by their JSON (see encodeShellLaunch). */
  private readonly shellEnvironments = new Map<string, number>();
  private readonly exited: Promise<void>;
  /** Set by `kill`: from then on nothing lets go of the launcher before its exit has been seen. */
  private killing = false;
  /** It sent what is not a reply and was killed: nothing more it sends is read. */
  private refused = false;

  private constructor(private readonly command: LauncherCommand) {
    this.child = spawn(command.file, [...command.args], {
      env: command.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', ...Array<'pipe'>(command.extraPipes ?? 0).fill('pipe')],
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => this.receive(chunk));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2000);
    });
    this.child.stdin!.on('error', () => undefined);
    if (command.preamble !== undefined) this.child.stdin!.write(command.preamble);
    this.child.once('error', (error) => this.fail(`the command launcher could not start: ${error.message}`));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        this.fail(`the command launcher ${how}${this.stderrTail ? `: ${this.stderrTail.trim()}` : ''}`);
        resolve();
      });
      this.child.once('error', () => resolve());
    });
    this.idle();
  }

  /** Starts a launcher process with this Node (or `nodePath`). */
  static start(nodePath: string = process.execPath): CommandLauncher {
    // Nothing of this process's environment: NODE_OPTIONS and the like would only make it bigger.
    return new CommandLauncher({ file: nodePath, args: launcherArgs(), env: {} });
  }

  /**
   * The launcher this process shares among its runs, started on first use (and again if the last one
   * died): hold it while a run may start commands, and `release` it at the run's end. The last release
   * closes it, so that nothing outlives the last run.
   */
  static shared(): LauncherLease {
    if (shared === undefined || !shared.alive) shared = CommandLauncher.start();
    const launcher = shared;
    launcher.leases += 1;
    let released = false;
    return {
      launcher,
      release: async () => {
        if (released) return;
        released = true;
        launcher.leases -= 1;
        if (launcher.leases > 0) return;
        if (shared === launcher) shared = undefined;
        await launcher.close();
      },
    };
  }

  /** Starts a launcher process with `command` (see LauncherCommand). */
  static startCommand(command: LauncherCommand): CommandLauncher {
    return new CommandLauncher(command);
  }

  /** The launcher's process (its pid, the extra pipes of LauncherCommand). */
  get childProcess(): ChildProcess {
    return this.child;
  }

  /** False once the launcher has exited or was closed: `launch` would only fail. */
  get alive(): boolean {
    return this.dead === undefined;
  }

  /** Starts one command through the launcher. */
  launch(request: LaunchRequest): LaunchedCommand {
    const id = this.nextId++;
    let resolveStarted!: (pid: number | undefined) => void;
    let resolveEnded!: (outcome: LaunchOutcome) => void;
    const started = new Promise<number | undefined>((resolve) => (resolveStarted = resolve));
    const ended = new Promise<LaunchOutcome>((resolve) => (resolveEnded = resolve));
    const kill = (signal: NodeJS.Signals) => this.signal(id, signal);
    if (this.dead !== undefined) {
      resolveStarted(undefined);
      resolveEnded({ error: { code: 'ELAUNCHER', message: this.dead } });
      return { started, ended, kill };
    }
    if (this.command.protocol === 'shell') {
      let line: string;
      try {
        line = encodeShellLaunch(
          { ...request, id, stdinFile: request.stdinFile ?? '/dev/null' },
          this.shellEnvironments,
          this.command.stageFile,
        );
      } catch (error) {
        resolveStarted(undefined);
        resolveEnded({ error: { code: (error as NodeJS.ErrnoException).code, message: (error as Error).message } });
        return { started, ended, kill };
      }
      this.pending.set(id, { started: resolveStarted, ended: resolveEnded, signals: new Set() });
      if (this.pending.size === 1 && this.syncs.size === 0) this.busy();
      this.child.stdin!.write(line);
      return { started, ended, kill };
    }
    this.pending.set(id, { started: resolveStarted, ended: resolveEnded });
    if (this.pending.size === 1 && this.syncs.size === 0) this.busy();
    const { file, args, cwd, env, stdin, stdoutFile, stderrFile, processFile, inheritFiles } = request;
    const message = JSON.stringify({ id, file, args, cwd, env, stdoutFile, stderrFile, processFile, inheritFiles });
    if (stdin === undefined) this.child.stdin!.write(`${message}\n`);
    else {
      // The stdin goes last, its JSON written a piece at a time, as bytes: a large one (a tool's 30 MB
      // argument) then waits for the pipe once, as bytes, not also as a message string, nor as strings
      // that the stream copies into bytes all at once when the pipe drains.
      this.child.stdin!.write(`${message.slice(0, -1)},"stdin":`);
      for (const piece of jsonStringPieces(stdin)) this.child.stdin!.write(Buffer.from(piece, 'utf8'));
      this.child.stdin!.write('}\n');
    }
    return { started, ended, kill };
  }

  /** Resolves once the launcher has handled everything sent to it before (or has ended). */
  async ready(): Promise<void> {
    if (this.dead !== undefined) return;
    const id = this.nextId++;
    const answered = new Promise<void>((resolve) => this.syncs.set(id, resolve));
    if (this.syncs.size === 1 && this.pending.size === 0) this.busy();
    this.child.stdin!.write(this.command.protocol === 'shell' ? `sync ${id}\n` : `${JSON.stringify({ id, sync: true })}\n`);
    await answered;
  }

  /** Sends `signal` to the process group of command `id`, if it still runs (through the launcher, which sees its pid as it is). */
  private signal(id: number, signal: NodeJS.Signals): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    if (this.command.protocol !== 'shell') {
      this.child.stdin!.write(`${JSON.stringify({ id, kill: signal })}\n`);
      return;
    }
    // The shell launcher is told the process group itself; before it is known, the signal waits for it.
    entry.signals!.add(signal);
    if (entry.pid === undefined) entry.early = signal;
    else this.child.stdin!.write(`stop ${entry.pid} ${signal}\n`);
  }

  /**
   * Lets the launcher finish what it was sent (the commands in flight) and exit; resolves when it has.
   * Nothing is started through it afterwards.
   */
  async close(): Promise<void> {
    if (this.dead === undefined) this.dead = 'the command launcher was closed';
    this.child.stdin!.end();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      // It exits by itself once its input has ended and no command it started is still running; a
      // command that will not end is not waited for longer than CLOSE_WAIT_MS.
      this.child.ref();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
      this.child.unref();
    }
  }

  /**
   * Ends the launcher at once with SIGKILL (what stops the run's sandbox, and everything in it), and
   * resolves once it has exited. Commands in flight end with an error, `reason`.
   */
  async kill(reason = 'the command launcher was stopped'): Promise<void> {
    this.hold();
    this.fail(reason);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      // Held until its exit is seen (hold): unref'd, this process could end in the middle of the wait.
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  /**
   * From now on the launcher keeps this process alive until its exit has been seen (what `kill` does
   * first; call it earlier when `kill` is to follow something awaited).
   */
  hold(): void {
    this.killing = true;
    this.child.ref();
  }

  private receive(chunk: string): void {
    if (this.refused) return;
    this.buffered += chunk;
    for (let end = this.buffered.indexOf('\n'); end >= 0; end = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      if (line === '') continue;
      let reply: unknown;
      if (this.command.protocol === 'shell') reply = decodeShellReply(line);
      else {
        try {
          reply = JSON.parse(line);
        } catch {
          reply = undefined;
        }
      }
      // The sandbox's launcher shares its namespaces with the tools, which can write to its output
      // (/proc/<its pid>/fd/1): what is not a reply ends it (and the sandbox), never this process.
      if (reply === null || typeof reply !== 'object') {
        this.refuse(`the command launcher sent what is not a reply: ${line.slice(0, 200)}`);
        return;
      }
      this.handle(reply as Reply);
    }
    const limit = MAX_REPLY_CHARS[this.command.protocol ?? 'json'];
    if (this.buffered.length > limit) this.refuse(`the command launcher sent a line longer than ${limit} characters`);
  }

  /** Ends a launcher that sent what is not a reply (see receive): its commands end with `reason`. */
  private refuse(reason: string): void {
    this.refused = true;
    this.buffered = '';
    this.fail(reason);
    this.child.kill('SIGKILL');
  }

  private handle(reply: Reply): void {
    if (reply.synced) {
      this.syncs.get(reply.id)?.();
      this.syncs.delete(reply.id);
      if (this.syncs.size === 0 && this.pending.size === 0) this.idle();
      return;
    }
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    if (reply.writeError !== undefined) {
      // The command's process file: the command runs on, and its end carries the error (see runCommand).
      entry.processFileError = { code: reply.code, message: reply.writeError, file: reply.file ?? '' };
      return;
    }
    if (reply.pid !== undefined) {
      entry.pid = reply.pid;
      entry.started(reply.pid);
      if (entry.early !== undefined) this.child.stdin!.write(`stop ${entry.pid} ${entry.early}\n`);
      return;
    }
    if (reply.status !== undefined) Object.assign(reply, shellEnd(reply.status, entry.signals));
    if (reply.error !== undefined && this.command.protocol === 'shell') reply.error = shellStartError(reply.error.code);
    this.pending.delete(reply.id);
    entry.started(undefined);
    entry.ended(
      reply.error
        ? { error: reply.error }
        : {
            exitCode: reply.exit ?? null,
            signal: reply.signal ?? null,
            ...(entry.processFileError ? { processFileError: entry.processFileError } : {}),
          },
    );
    if (this.pending.size === 0 && this.syncs.size === 0) this.idle();
  }

  private fail(reason: string): void {
    this.dead ??= reason;
    for (const settled of this.syncs.values()) settled();
    this.syncs.clear();
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      // A command left running with nobody to report its end is stopped, not abandoned (in the sandbox,
      // its PID namespace ended with the launcher, and the pid is not one of ours to signal).
      if (entry.pid !== undefined && this.command.pidsAreLocal !== true) {
        try {
          process.kill(-entry.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      entry.started(undefined);
      entry.ended({ error: { code: 'ELAUNCHER', message: reason } });
    }
    this.idle();
  }

  /** While commands are in flight the launcher keeps this process alive; otherwise it must not. */
  private busy(): void {
    this.child.ref();
    (this.child.stdout as unknown as { ref?: () => void } | null)?.ref?.();
  }

  private idle(): void {
    if (this.killing) return;
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) {
      (stream as unknown as { unref?: () => void } | null)?.unref?.();
    }
  }
}

/**
 * A shell's status as an exit or a signal: 128+N is the signal N when this process sent N (a timeout, an
 * interrupt), and an exit code otherwise: a shell cannot tell `exit 137` from SIGKILL, and a signal from
 * elsewhere (a tool that killed itself) is reported as the shell reports it.
 */
function shellEnd(status: number, sent: ReadonlySet<NodeJS.Signals> | undefined): { exit: number | null; signal: NodeJS.Signals | null } {
  for (const signal of sent ?? []) if (status === 128 + constants.signals[signal]) return { exit: null, signal };
  return { exit: status, signal: null };
}

/** What the shell launcher's start failure means, as the node launcher says it. */
function shellStartError(code: string | undefined): { code?: string; message: string } {
  if (code === 'EIO') return { code, message: "the command's input or output file could not be opened" };
  return { code, message: code === 'EACCES' ? 'permission denied' : 'no such file or directory' };
}
