import { signalProcessGroup } from './process-group.js';
import type { RunCommandOptions } from './run-command.js';

/** How long after SIGKILL a sandboxed command may take to be reported ended before its sandbox is ended. */
const LAST_RESORT_MS = 10_000;

/** What a Supervisor reads of the command's options. */
export type SupervisorOptions = Pick<RunCommandOptions, 'timeoutMs' | 'signal' | 'killGraceMs'>;

/** Stops a command's process group on timeout or abort: SIGTERM, then SIGKILL after the grace period. */
export class Supervisor {
  timedOut = false;
  aborted = false;
  /** The last resort was used: the launcher was ended (its message says so). */
  gaveUp = false;
  private pid: number | undefined;
  private signal: (signal: NodeJS.Signals) => void = (signal) => signalProcessGroup(this.pid, signal);
  private lastResort: (() => void) | undefined;
  private lastResortTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private forceTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => {
    this.aborted = true;
    this.stop();
  };

  constructor(private readonly options: SupervisorOptions) {
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
