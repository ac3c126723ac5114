import { spawn, type ChildProcess } from 'node:child_process';
import { writeJsonLaunch } from './json-launch.js';
import { ReplyReader } from './reply-reader.js';
import type { LaunchedCommand, LauncherCommand, LaunchOutcome, LaunchRequest, Reply } from './launch-protocol.js';
import { leaseSharedLauncher, type LauncherLease } from './launcher-lease.js';
import { launcherArgs } from './launcher-program.js';
import { encodeShellLaunch } from './sandbox/shell-launcher.js';
import { asNodeReply, earlyShellStop, type ShellSignals, shellStop } from './sandbox/shell-replies.js';

export type { LaunchedCommand, LauncherCommand, LaunchOutcome, LaunchRequest } from './launch-protocol.js';
export type { LauncherLease } from './launcher-lease.js';
export { launcherArgs, launcherProgramPath } from './launcher-program.js';

/** How long `close` waits for the launcher to exit. */
const CLOSE_WAIT_MS = 5_000;

/** A command sent to the launcher whose end is not known yet (with the shell protocol's signal bookkeeping, ShellSignals). */
interface Pending extends ShellSignals {
  started: (pid: number | undefined) => void;
  ended: (outcome: LaunchOutcome) => void;
  processFileError?: { code?: string; message: string; file: string };
}

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
  private readonly replies: ReplyReader;
  private stderrTail = '';
  private dead: string | undefined;
  /** `ready` calls waiting for their sync reply (or for the launcher's end). */
  private syncs = new Map<number, () => void>();
  /** Shell protocol: the environments sent so far, by their JSON (see encodeShellLaunch). */
  private readonly shellEnvironments = new Map<string, number>();
  private readonly exited: Promise<void>;
  /** Set by `kill`: from then on nothing lets go of the launcher before its exit has been seen. */
  private killing = false;

  private constructor(private readonly command: LauncherCommand) {
    this.child = spawn(command.file, [...command.args], {
      env: command.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', ...Array<'pipe'>(command.extraPipes ?? 0).fill('pipe')],
    });
    this.child.stdout!.setEncoding('utf8');
    this.replies = new ReplyReader(
      command.protocol ?? 'json',
      (reply) => this.handle(reply),
      (reason) => {
        this.fail(reason);
        this.child.kill('SIGKILL');
      },
    );
    this.child.stdout!.on('data', (chunk: string) => this.replies.receive(chunk));
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
    return leaseSharedLauncher(() => CommandLauncher.start());
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
    writeJsonLaunch(this.child.stdin!, id, request);
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
    const stop = shellStop(entry, signal);
    if (stop !== undefined) this.child.stdin!.write(stop);
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
      const stop = earlyShellStop(entry);
      if (stop !== undefined) this.child.stdin!.write(stop);
      return;
    }
    if (this.command.protocol === 'shell') asNodeReply(reply, entry);
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
