import { pathsHiddenBySandbox } from './hidden-paths.js';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandLauncher, launcherProgramPath, type LaunchRequest, type LaunchedCommand } from '../launcher.js';
import { bubblewrapSandboxArgs, bubblewrapToolArgs, SANDBOX_OUTPUT_DIR } from './bubblewrap-args.js';
import { outsideSockets } from './outside-sockets.js';
import { createSandboxTmp, removeAbandonedSandboxTmpsOnce, sandboxTmpParent } from './sandbox-tmp.js';
import { stageFile, stageInput, stageOutput, type StagedOutput } from './stage-output.js';
import { SHELL_LAUNCHER_PROGRAM, shellLauncherCommand, shellWord } from './shell-launcher.js';
import { SECCOMP_FD, type SandboxPolicy } from './sandbox-policy.js';
import { setIdFilter } from './seccomp-filter.js';

/** A command as it runs inside the sandbox on its own: bubblewrap, and the namespace file it inherits as fd 3. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /** Opened by whoever starts the command and given to it as file descriptors 3, 4, … in this order. */
  inheritFiles: string[];
  /** Given to it on pipes, as the file descriptors after those of inheritFiles: its seccomp filter. */
  inheritData: Buffer[];
}

const INFO_FD = 3;

/** The top directory under /tmp of `path`, if it is under /tmp (the sandbox's /tmp is its own). */
function topUnderTmp(path: string): string[] {
  return path.startsWith('/tmp/') ? [join('/tmp', path.slice('/tmp/'.length).split('/')[0]!)] : [];
}

/**
 * The sandbox of one run: ONE bubblewrap, started before the first tool call, running the run's tool
 * launcher inside it (a bash program, see shell-launcher.ts: about 0.3 MB of its own memory, where a node
 * launcher held 15), so that a tool call is a fork and exec from there: no bubblewrap, no namespace or
 * mount set up per call (what cost 5-8 ms a call when each call had its own bubblewrap). See
 * bubblewrapSandboxArgs for what the tools see.
 *
 * The launcher inside has the tools' rights and no more: the tools share its user and PID namespaces, so
 * they could read its memory and open files and directories through /proc/<its pid>/fd. It therefore
 * never holds anything the tools must not reach. The run's records under .delta/ (read-only in there)
 * are written from outside: this process creates each call's stdout.log and stderr.log itself and hard
 * links them into /tmp/.delta-io (see stageOutput), where the launcher opens them by those names; once
 * the call has ended the links are removed, so a finished record can be reached by no tool. A call's
 * stdin is a file written there too (stageInput), removed when the call ends. A call in flight could
 * already be reached before (its output is /proc/<tool pid>/fd/1 to every sandboxed process).
 * process.json is not written: the pids in there are the sandbox's, and nothing sandboxed outlives the
 * engine (the launcher exits when its pipe from the engine closes, however the engine ended, and
 * bubblewrap then ends every process left), so a resumed run has nothing to stop.
 *
 * `stop` ends it, and with it every process still running inside; the run's private /tmp is removed then.
 * An engine killed before that leaves it behind: the next process to start a sandbox removes it (see
 * sandbox-tmp.ts).
 */
export class RunSandbox {
  /** The launcher inside, its first pid, and its readiness: once started (see `started`). */
  private running: { launcher: CommandLauncher; ready: Promise<number>; firstPid: Promise<number | undefined> } | undefined;
  private stopped = false;
  readonly tmpDir: string;

  private constructor(
    readonly policy: SandboxPolicy,
    private readonly bubblewrap: string,
  ) {
    const parent = sandboxTmpParent(tmpdir());
    removeAbandonedSandboxTmpsOnce(parent);
    this.tmpDir = createSandboxTmp(parent);
    mkdirSync(join(this.tmpDir, SANDBOX_OUTPUT_DIR));
    startSoon(this);
  }

  /**
   * The launcher inside, started now if it was not yet. A sandbox is started a little after it is
   * created (see startSoon), or at its first use, whichever comes first.
   */
  get launcher(): CommandLauncher {
    return this.started().launcher;
  }

  private started(): NonNullable<RunSandbox['running']> {
    if (this.running === undefined && this.stopped) throw Object.assign(new Error("the run's sandbox was stopped"), { code: 'ELAUNCHER' });
    this.running ??= this.startBubblewrap();
    return this.running;
  }

  /** Starts it now, unless it was started or stopped already (see startSoon). */
  startIfWaiting(): void {
    if (this.running === undefined && !this.stopped) this.started();
  }

  private startBubblewrap(): NonNullable<RunSandbox['running']> {
    const policy = this.policy;
    // The engine's node and program stay readable in there, also from a clone under /tmp (which the
    // sandbox's own /tmp would hide): a tool may start a sub-agent with them.
    const visiblePaths = [...new Set([...policy.visiblePaths, ...topUnderTmp(launcherProgramPath()), ...topUnderTmp(process.execPath)])];
    const seen = { ...policy, visiblePaths };
    const launcher = CommandLauncher.startCommand({
      file: this.bubblewrap,
      args: [...bubblewrapSandboxArgs(seen, this.tmpDir, INFO_FD, outsideSockets(seen)), ...shellLauncherCommand()],
      // Nothing of the engine's environment: a tool can read the launcher's through /proc.
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      // INFO_FD, then SECCOMP_FD.
      extraPipes: 2,
      pidsAreLocal: true,
      protocol: 'shell',
      // Files bash reads whole, where it reads its stdin a byte at a time: its program, and each environment.
      preamble: `. ${shellWord(stageFile(this.tmpDir, SHELL_LAUNCHER_PROGRAM, 'launcher.sh'))}\n`,
      stageFile: (text) => stageFile(this.tmpDir, text),
    });
    const child = launcher.childProcess;
    const filter = child.stdio[SECCOMP_FD] as Writable;
    filter.on('error', () => undefined);
    filter.end(setIdFilter());

    const firstPid = new Promise<number>((resolve, reject) => {
      let info = '';
      // Read to its end (closed early, bubblewrap's next write there would kill it with SIGPIPE), but
      // it must not keep this process alive.
      const infoStream = child.stdio[INFO_FD] as unknown as NodeJS.ReadableStream & { unref(): void };
      infoStream.setEncoding('utf8');
      infoStream.on('data', (chunk: string) => {
        info += chunk;
        const match = /"child-pid"\s*:\s*(\d+)/.exec(info);
        if (match) {
          resolve(Number(match[1]));
          infoStream.unref();
        }
      });
      infoStream.on('error', () => undefined);
      infoStream.once('close', () => reject(new Error("the run's sandbox (bubblewrap) did not start")));
    });
    // The launcher answering proves bubblewrap has set the namespaces up (their uid map above all): a
    // command that joined them before would run as nobody.
    const ready = Promise.all([firstPid, launcher.ready()]).then(([pid]) => {
      if (!launcher.alive) throw new Error("the run's sandbox (bubblewrap) ended before its first tool call");
      return pid;
    });
    // Nobody may be waiting: wrap reports a failure, and a tool call its own (the launcher's end).
    ready.catch(() => undefined);
    return { launcher, ready, firstPid: firstPid.catch(() => undefined) };
  }

  /** Starts the run's sandbox with the bubblewrap at `bubblewrap` (see probeBubblewrap). */
  static start(policy: SandboxPolicy, bubblewrap: string): RunSandbox {
    return new RunSandbox(policy, bubblewrap);
  }

  /**
   * Starts one tool call through the launcher inside, its output going to `stdoutFile` and `stderrFile`
   * (paths outside, under .delta/): see stageOutput. `finish` must be called once it has ended.
   */
  launch(request: Omit<LaunchRequest, 'processFile' | 'inheritFiles'>): LaunchedCommand & { finish: () => void; lastResort: () => void } {
    if (this.stopped) {
      // Nothing runs in a sandbox that was stopped (its /tmp is gone), whether it had started or not.
      const ended = { error: { code: 'ELAUNCHER', message: "the run's sandbox was stopped" } };
      return { started: Promise.resolve(undefined), ended: Promise.resolve(ended), kill: () => {}, finish: () => {}, lastResort: () => {} };
    }
    const staged: StagedOutput[] = [];
    try {
      staged.push(stageOutput(request.stdoutFile, this.tmpDir));
      staged.push(stageOutput(request.stderrFile, this.tmpDir));
      if (request.stdin !== undefined) staged.push(stageInput(request.stdin, this.tmpDir));
    } catch (error) {
      for (const output of staged) output.finish();
      throw error;
    }
    const { stdin: _stdin, ...rest } = request;
    const launched = this.launcher.launch({
      ...rest,
      // A delta a tool starts (a sub-agent) cannot nest a sandbox in this one; it reads this and runs
      // its tools in the sandbox it is already in.
      env: { ...request.env, DELTA_SANDBOX: this.policy.mode },
      stdoutFile: staged[0]!.inside,
      stderrFile: staged[1]!.inside,
      ...(staged[2] ? { stdinFile: staged[2].inside } : {}),
    });
    return {
      ...launched,
      finish: () => {
        for (const output of staged) output.finish();
      },
      // A call stopped (timeout, interrupt) whose end the launcher never reports: a tool has stopped or
      // taken over the launcher. The sandbox is ended, and every call in it with it.
      lastResort: () => void this.launcher.kill("the run's sandbox was ended: its launcher did not report a stopped call's end"),
    };
  }

  /**
   * The command that runs `file args` in `cwd` inside the sandbox as a process of its own (its own
   * bubblewrap, joining the run's user namespace, with a PID namespace of its own; see bubblewrapToolArgs):
   * for a long-lived command such as a server. Rejects when the sandbox could not start.
   */
  /** The paths these words name under /tmp that exist here but that the sandbox's tools cannot see (see hidden-paths.ts). */
  hiddenPaths(words: readonly string[]): string[] {
    return pathsHiddenBySandbox(this.policy, words);
  }

  async wrap(file: string, args: readonly string[], cwd: string): Promise<SandboxedCommand> {
    const pid = await this.started().ready;
    return {
      file: this.bubblewrap,
      args: [...bubblewrapToolArgs(this.policy, this.tmpDir, cwd, outsideSockets(this.policy)), file, ...args],
      inheritFiles: [`/proc/${pid}/ns/user`],
      inheritData: [setIdFilter()],
    };
  }

  /** Ends the sandbox: every process left inside is killed with it. Waits for that, then removes its /tmp. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = this.running;
    if (running) {
      const { launcher } = running;
      // Whatever arrives meanwhile, nothing lets go of the launcher now: this process could otherwise end
      // in the middle of `stop`, with its promise pending.
      launcher.hold();
      // bubblewrap's first process waits, before anything else, for bubblewrap to say go (after it has
      // written the info): bubblewrap killed before that would leave it waiting for ever, with no parent.
      // So it is killed too, while bubblewrap (which reaps it) still runs, so that its pid is still its own.
      const first = await running.firstPid;
      const child = launcher.childProcess;
      if (first !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(first, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      await launcher.kill();
    }
    // Off the event loop: deleting is slow on these file systems, and the other runs of a batch go on meanwhile.
    await rm(this.tmpDir, { recursive: true, force: true });
  }
}

/** Sandboxes created and not yet started, oldest first (see startSoon). */
const toStart: RunSandbox[] = [];

/**
 * Starts `sandbox` soon, one sandbox per turn of the event loop: starting a bubblewrap forks this process
 * (about 5 ms for a batch's engine), and a batch that opens 256 runs at once would otherwise fork 256
 * times before the first of them sends its first request. A sandbox needed before its turn is started
 * then (RunSandbox.launcher, wrap).
 */
function startSoon(sandbox: RunSandbox): void {
  toStart.push(sandbox);
  if (toStart.length === 1) setImmediate(startNext);
}

function startNext(): void {
  const next = toStart.shift();
  next?.startIfWaiting();
  if (toStart.length > 0) setImmediate(startNext);
}
