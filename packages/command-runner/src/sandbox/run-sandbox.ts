import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bubblewrapHolderArgs, bubblewrapToolArgs } from './bubblewrap-args.js';
import type { SandboxPolicy } from './sandbox-policy.js';

/** A tool call as it runs inside the sandbox: bubblewrap, and the namespace files it inherits as fds 3 and 4. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /** Opened by whoever starts the command and given to it as file descriptors 3, 4, … in this order. */
  inheritFiles: string[];
}

const INFO_FD = 3;

/**
 * The sandbox of one run (see bubblewrapHolderArgs): started once, before the first tool call; every call
 * then runs through `wrap`. `stop` ends it, and with it every process still running inside; the run's
 * private /tmp is removed then.
 */
export class RunSandbox {
  private readonly holder: ChildProcess;
  private readonly ready: Promise<number>;
  private readonly exited: Promise<void>;
  /** Set by `stop`: from then on the holder keeps this process alive until it has exited. */
  private stopping = false;
  readonly tmpDir: string;

  private constructor(
    readonly policy: SandboxPolicy,
    private readonly bubblewrap: string,
  ) {
    this.tmpDir = mkdtempSync(join(tmpdir(), 'delta-sandbox-tmp-'));
    // It says "ready" once bubblewrap has set up the namespaces (their uid map above all): a tool that
    // joined them before would run as nobody. Then it reads its stdin, a pipe from this process, until the
    // pipe closes: when this process ends, however it ends (SIGKILL included), the holder ends too, and
    // the kernel ends every process left in the run's PID namespace.
    this.holder = spawn(bubblewrap, bubblewrapHolderArgs(INFO_FD, ['sh', '-c', 'echo ready; exec cat > /dev/null']), {
      // Nothing of the engine's environment: a tool can read the holder's (its PID 1) through /proc.
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    this.holder.stdin!.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.holder.once('exit', () => resolve());
      this.holder.once('error', () => resolve());
    });
    this.ready = new Promise((resolve, reject) => {
      let info = '';
      let said = '';
      let stderr = '';
      const settle = () => {
        const match = /"child-pid"\s*:\s*(\d+)/.exec(info);
        if (match && said.includes('ready\n')) resolve(Number(match[1]));
      };
      const infoStream = this.holder.stdio[INFO_FD] as NodeJS.ReadableStream;
      infoStream.setEncoding('utf8');
      infoStream.on('data', (chunk: string) => {
        info += chunk;
        settle();
      });
      this.holder.stdout!.setEncoding('utf8');
      this.holder.stdout!.on('data', (chunk: string) => {
        said += chunk;
        settle();
      });
      this.holder.stderr!.setEncoding('utf8');
      this.holder.stderr!.on('data', (chunk: string) => (stderr += chunk));
      const failed = (why: string) => reject(new Error(`the run's sandbox (bubblewrap) ${why}${stderr ? `: ${stderr.trim()}` : ''}`));
      this.holder.once('error', (error) => failed(`could not start: ${error.message}`));
      this.holder.once('exit', (code, signal) => failed(`ended before its first tool call (${signal ?? `exit ${code}`})`));
    });
    // Nobody waits for a failure here; the first tool call reports it. Until it is ready the holder keeps
    // this process alive (a tool call is waiting for it); afterwards it must not keep it from ending.
    this.ready.then(
      () => this.release(),
      () => this.release(),
    );
  }

  private release(): void {
    // "ready" can arrive after `stop` has killed the holder and before its exit is seen: unref'd then,
    // nothing would be left to keep this process alive, and it would end in the middle of `stop` (a
    // `delta replay` exited 0 having printed nothing).
    if (this.stopping) return;
    this.holder.unref();
    for (const stream of this.holder.stdio) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }

  /** Starts the run's sandbox with the bubblewrap at `bubblewrap` (see probeBubblewrap). */
  static start(policy: SandboxPolicy, bubblewrap: string): RunSandbox {
    return new RunSandbox(policy, bubblewrap);
  }

  /** The command that runs `file args` in `cwd` inside the sandbox. Rejects when the sandbox could not start. */
  async wrap(file: string, args: readonly string[], cwd: string): Promise<SandboxedCommand> {
    const pid = await this.ready;
    return {
      file: this.bubblewrap,
      args: [...bubblewrapToolArgs(this.policy, this.tmpDir, cwd), file, ...args],
      inheritFiles: [`/proc/${pid}/ns/user`, `/proc/${pid}/ns/pid`],
    };
  }

  /** Ends the sandbox: every process left inside is killed with it. Waits for that, then removes its /tmp. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.holder.exitCode === null && this.holder.signalCode === null) {
      // Held (the holder is unref'd), or this process could end while waiting, before the run is closed.
      this.holder.ref();
      this.holder.kill('SIGKILL');
      await this.exited;
    }
    rmSync(this.tmpDir, { recursive: true, force: true });
  }
}
