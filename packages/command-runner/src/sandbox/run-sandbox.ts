import { pathsHiddenBySandbox } from './hidden-paths.js';
import { mkdirSync, renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CommandLauncher, launcherProgramPath, type LaunchRequest, type LaunchedCommand } from '../launcher.js';
import { bubblewrapSandboxArgs, bubblewrapToolArgs, imageRootMount, LAUNCHER_DIR, mountTargets } from './bubblewrap-args.js';
import { launcherCommand, placeLauncherFiles, releaseLauncherFiles } from './launcher-files.js';
import { outsideSockets } from './outside-sockets.js';
import { createSandboxTmp, removeAbandonedSandboxTmpsOnce, sandboxTmpParent } from './sandbox-tmp.js';
import { stageFile, stageInput, stageOutput, type StagedOutput } from './stage-output.js';
import { SHELL_LAUNCHER_PROGRAM, shellWord } from './shell-launcher.js';
import { pathInside, SECCOMP_FD, type SandboxPolicy } from './sandbox-policy.js';
import { afterTargetsChecked, inImageRoot, inSandboxMounts, prepareImageRoot } from './image-root.js';
import { CgroupLimits, type LimitEnforcement, type LimitName } from './cgroup-limits.js';
import { type RunSandboxOptions, type SandboxLayerLimit, sandboxLayerLimit, withLayerLimit } from './sandbox-layer-limit.js';
import { removeLayerWork } from './image-layer.js';
import { startSoon } from './start-soon.js';
import { sandboxSeccompFilter } from './seccomp-filter.js';
import { SystemError } from '@delta/errors';

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
 * launcher inside it (a bash program, see shell-launcher.ts: about 0.3 MB of its own memory), so that a
 * tool call is a fork and exec from there, with no namespace or mount set up per call. See
 * bubblewrapSandboxArgs for what the tools see, and docs/security.md ("The sandbox") for why no tool can
 * reach the launcher: it runs from a loader it may not read (launcher-files.ts), is the namespace's first
 * process, and the seccomp filter refuses ptrace, process_vm_* and pidfd_getfd.
 *
 * The sandbox's directory (`home`, this user's only) holds `tmp/`, the tools' /tmp, and the launcher's
 * directory: tmp/.delta-io, where bubblewrap starts the launcher, moved to `home/io` once it answers (it
 * keeps it as its working directory; no path inside leads there any more). Each call's files are put there
 * (stageOutput, stageInput, stageFile) and opened by the launcher by name: the records under .delta/
 * (read-only in there) are created here and hard linked in, and replaced by copies when the call ends.
 * process.json is not written: nothing sandboxed outlives the engine (the launcher exits when its pipe
 * closes, and bubblewrap then ends every process left). With `policy.limits`, every process of the run is
 * in cgroups of its own (cgroup-limits.ts). `stop` ends it all and removes the directory; an engine killed
 * before leaves it to the next one (sandbox-tmp.ts).
 */
export class RunSandbox {
  /** The launcher inside, its first pid, and its readiness: once started (see `started`). */
  private running: { launcher: CommandLauncher; ready: Promise<number>; firstPid: Promise<number | undefined> } | undefined;
  private stopped = false;
  /** The sandbox's own directory: `tmp/` and the launcher's directory (see the class's comment). */
  private readonly home: string;
  /** The tools' /tmp, on this machine. */
  readonly tmpDir: string;
  /** The launcher's directory on this machine: under tmpDir until the launcher answers, then out of the tools' sight. */
  private ioDir: string;
  /** Whether ioDir is out of the tools' sight: no call is launched before. */
  private hidden = false;
  /** The cgroups holding the run to `policy.limits`, when it has any. */
  private readonly cgroups: CgroupLimits | undefined;
  /** What holds the run's layer to `policy.limits.layerBytes` (a run in an image), or why nothing can. */
  private readonly layer: SandboxLayerLimit | undefined;

  private constructor(
    readonly policy: SandboxPolicy,
    private readonly bubblewrap: string,
    options: RunSandboxOptions = {},
  ) {
    const parent = sandboxTmpParent(tmpdir());
    removeAbandonedSandboxTmpsOnce(parent);
    this.home = createSandboxTmp(parent);
    this.tmpDir = join(this.home, 'tmp');
    this.ioDir = join(this.tmpDir, LAUNCHER_DIR);
    mkdirSync(this.ioDir, { recursive: true, mode: 0o700 });
    placeLauncherFiles(parent, this.ioDir);
    if (policy.image) prepareImageRoot(this.home, policy.image);
    this.cgroups =
      policy.limits && Object.keys(policy.limits).some((limit) => limit !== 'layerBytes')
        ? new CgroupLimits(policy.limits, basename(this.home))
        : undefined;
    this.layer = sandboxLayerLimit(policy, (bytes, bound) => {
      const detail = `the run's layer holds ${bytes} bytes, past its limit of ${bound}`;
      options.onLimit?.('layerBytes', detail);
      // Every process in the sandbox ends with it: nothing more is written there.
      if (this.running) void this.running.launcher.kill(`the run's sandbox was ended: ${detail}`);
    });
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
    if (this.running === undefined) {
      this.running = this.startBubblewrap();
      if (this.layer && 'watch' in this.layer) this.layer.watch.start();
    }
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
    // (Under an image they could not run: they need this machine's libraries.)
    const engine = policy.image ? [] : [...topUnderTmp(launcherProgramPath()), ...topUnderTmp(process.execPath)];
    const seen = { ...policy, visiblePaths: [...new Set([...policy.visiblePaths, ...engine])] };
    const args = [
      ...bubblewrapSandboxArgs(seen, this.tmpDir, INFO_FD, outsideSockets(seen)),
      ...launcherCommand(join('/tmp', LAUNCHER_DIR)),
    ];
    const launcher = CommandLauncher.startCommand({
      ...(policy.image
        ? inImageRoot(this.home, this.tmpDir, policy.image, this.bubblewrap, args, mountTargets(seen, this.tmpDir, outsideSockets(seen)))
        : { file: this.bubblewrap, args }),
      // Nothing of the engine's environment: a tool can read the launcher's through /proc.
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      // INFO_FD, then SECCOMP_FD.
      extraPipes: 2,
      pidsAreLocal: true,
      protocol: 'shell',
      // Files bash reads whole, where it reads its stdin a byte at a time: its program, and each environment.
      preamble: `. ${shellWord(stageFile(this.ioDir, SHELL_LAUNCHER_PROGRAM, 'launcher.sh'))}\n`,
      stageFile: (text) => stageFile(this.ioDir, text),
    });
    const child = launcher.childProcess;
    const filter = child.stdio[SECCOMP_FD] as Writable;
    filter.on('error', () => undefined);
    filter.end(sandboxSeccompFilter());

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
      infoStream.once('close', () => reject(new SystemError("the run's sandbox (bubblewrap) did not start", { code: 'START_FAILED' })));
    });
    // The launcher answering proves bubblewrap has set the namespaces up (their uid map above all): a
    // command that joined them before would run as nobody.
    // It then works in ioDir, which is moved out of the tools' sight before any call is launched.
    const ready = Promise.all([firstPid, launcher.ready()]).then(([pid]) => {
      if (!launcher.alive)
        throw new SystemError("the run's sandbox (bubblewrap) ended before its first tool call", { code: 'START_FAILED' });
      // Before anything it starts: what it starts from now on is in the run's cgroups too.
      this.cgroups?.add(pid);
      if (!this.hidden) {
        const hidden = join(this.home, 'io');
        renameSync(this.ioDir, hidden);
        this.ioDir = hidden;
        this.hidden = true;
      }
      return pid;
    });
    // Nobody may be waiting: wrap reports a failure, and a tool call its own (the launcher's end).
    ready.catch(() => undefined);
    return { launcher, ready, firstPid: firstPid.catch(() => undefined) };
  }

  /** Starts the run's sandbox with the bubblewrap at `bubblewrap` (see probeBubblewrap). */
  static start(policy: SandboxPolicy, bubblewrap: string, options: RunSandboxOptions = {}): RunSandbox {
    return new RunSandbox(policy, bubblewrap, options);
  }

  /**
   * Resolves once the sandbox takes calls (its launcher answers, its directory out of the tools' sight), or
   * could not start (then `launch` reports why): what `launch` waits for.
   */
  async ready(): Promise<void> {
    if (this.stopped) return;
    await this.started().ready.catch(() => undefined);
  }

  /**
   * Starts one tool call through the launcher inside, its output going to `stdoutFile` and `stderrFile`
   * (paths outside, under .delta/): see stageOutput. `finish` must be called once it has ended. Call it
   * once `ready` has resolved.
   */
  launch(request: Omit<LaunchRequest, 'processFile' | 'inheritFiles'>): LaunchedCommand & { finish: () => void; lastResort: () => void } {
    const refused = this.stopped
      ? // Nothing runs in a sandbox that was stopped (its /tmp is gone), whether it had started or not.
        "the run's sandbox was stopped"
      : !this.hidden && this.launcher.alive
        ? "the run's sandbox is not ready: wait for RunSandbox.ready() before launching a call"
        : undefined;
    if (refused !== undefined) {
      const ended = { error: { code: 'ELAUNCHER', message: refused } };
      return { started: Promise.resolve(undefined), ended: Promise.resolve(ended), kill: () => {}, finish: () => {}, lastResort: () => {} };
    }
    const staged: StagedOutput[] = [];
    try {
      staged.push(stageOutput(request.stdoutFile, this.ioDir, join(this.home, 'freeing')));
      staged.push(stageOutput(request.stderrFile, this.ioDir, join(this.home, 'freeing')));
      if (request.stdin !== undefined) staged.push(stageInput(request.stdin, this.ioDir));
    } catch (error) {
      for (const output of staged) output.finish();
      throw error;
    }
    const { stdin: _stdin, ...rest } = request;
    const launched = this.launcher.launch({
      ...rest,
      cwd: pathInside(this.policy, request.cwd),
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
        // What a call wrote is measured as it ends, so that a quick write passing the bound is caught at once.
        if (this.layer && 'watch' in this.layer) this.layer.watch.check();
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
  /** How `policy.limits` are held (or why one is not), and which of them the run ran into so far. */
  get limits(): { enforcement: LimitEnforcement | undefined; hit: LimitName[] } {
    return withLayerLimit(this.cgroups, this.layer);
  }

  /** The paths these words name under /tmp that exist here but that the sandbox's tools cannot see (see hidden-paths.ts). */
  hiddenPaths(words: readonly string[]): string[] {
    return pathsHiddenBySandbox(this.policy, words);
  }

  async wrap(file: string, args: readonly string[], cwd: string): Promise<SandboxedCommand> {
    const { ready, launcher } = this.started();
    const pid = await ready;
    const command = [
      this.bubblewrap,
      ...bubblewrapToolArgs(this.policy, this.tmpDir, pathInside(this.policy, cwd), outsideSockets(this.policy)),
      file,
      ...args,
    ];
    // Under an image, in the namespaces where the run's root is mounted (those of the sandbox's bubblewrap).
    // Its targets checked there first: a tool may have made a link on the way to one since the sandbox started.
    const mounted = this.policy.image
      ? inSandboxMounts(
          launcher.childProcess.pid!,
          afterTargetsChecked(imageRootMount(this.tmpDir), mountTargets(this.policy, this.tmpDir, outsideSockets(this.policy)), command),
        )
      : command;
    // In the run's cgroups before it starts anything.
    const [program, ...rest] = this.cgroups ? ['/bin/sh', '-c', `${this.cgroups.joinScript()} && exec "$@"`, 'sh', ...mounted] : mounted;
    return {
      file: program!,
      args: rest,
      inheritFiles: [`/proc/${pid}/ns/user`],
      inheritData: [sandboxSeccompFilter()],
    };
  }

  /** Ends the sandbox: every process left inside is killed with it. Waits for that, then removes its /tmp. */
  async stop(): Promise<void> {
    if (!this.stopped) releaseLauncherFiles();
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
    if (this.layer && 'watch' in this.layer) this.layer.watch.stop();
    this.cgroups?.remove();
    // The overlay's work directory (closed to its owner by the kernel) goes with the sandbox; the layer stays.
    if (this.policy.image) removeLayerWork(this.policy.image.layer);
    // Off the event loop: deleting is slow on these file systems, and the other runs of a batch go on meanwhile.
    await rm(this.home, { recursive: true, force: true });
  }
}
