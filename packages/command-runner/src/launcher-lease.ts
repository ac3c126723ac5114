import type { CommandLauncher } from './launcher.js';

/** One use of the launcher this process shares (see CommandLauncher.shared): `release` once done with it. */
export interface LauncherLease {
  readonly launcher: CommandLauncher;
  /** Lets go of it; the last lease to go closes the launcher (see `close`). Once is enough; more do nothing. */
  release(): Promise<void>;
}

/** The launcher every caller of `CommandLauncher.shared` in this process uses while it lives. */
let shared: CommandLauncher | undefined;

/** The leases still held on each launcher that was shared. */
const leases = new WeakMap<CommandLauncher, number>();

/**
 * A lease of the launcher this process shares among its runs, started with `start` on first use (and
 * again if the last one died). The last release closes it, so that nothing outlives the last run.
 */
export function leaseSharedLauncher(start: () => CommandLauncher): LauncherLease {
  if (shared === undefined || !shared.alive) shared = start();
  const launcher = shared;
  leases.set(launcher, (leases.get(launcher) ?? 0) + 1);
  let released = false;
  return {
    launcher,
    release: async () => {
      if (released) return;
      released = true;
      const left = (leases.get(launcher) ?? 1) - 1;
      leases.set(launcher, left);
      if (left > 0) return;
      if (shared === launcher) shared = undefined;
      await launcher.close();
    },
  };
}
