import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What one run's sandbox may use at most: every process in it together. */
export interface SandboxLimits {
  /** Memory in bytes (resident, page cache of its files included, as the kernel counts it). */
  memoryBytes?: number;
  /** Processes and threads at once: a fork bomb stops there. */
  processes?: number;
  /** A share of CPU time, in CPUs (1.5: one and a half CPUs' worth of time in every period). */
  cpus?: number;
  /**
   * Bytes on disk of the run's own layer (a run in an image): what it writes outside its workspace. Held by
   * the sandbox itself, which measures the layer and ends the sandbox once it is past this (see layer-watch.ts).
   */
  layerBytes?: number;
}

export type LimitName = keyof SandboxLimits;
type CgroupLimitName = Exclude<LimitName, 'layerBytes'>;

/** How each limit asked for is held, or why it is not. */
export interface LimitEnforcement {
  enforced: Array<{ limit: LimitName; by: 'cgroup v1' | 'cgroup v2' | 'layer watch' }>;
  unenforced: Array<{ limit: LimitName; reason: string }>;
}

const CGROUP_ROOT = '/sys/fs/cgroup';
const V1_CONTROLLER: Record<CgroupLimitName, string> = { memoryBytes: 'memory', processes: 'pids', cpus: 'cpu' };
const V2_CONTROLLER: Record<CgroupLimitName, string> = { memoryBytes: 'memory', processes: 'pids', cpus: 'cpu' };
const CPU_PERIOD_US = 100_000;

/** This process's cgroup per v1 controller, and its v2 cgroup (`/proc/self/cgroup`). */
function ownCgroups(): { v1: Map<string, string>; v2: string | undefined } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers === undefined || path === undefined) continue;
    if (controllers === '') v2 = path;
    else for (const controller of controllers.split(',')) v1.set(controller, path);
  }
  return { v1, v2 };
}

/** The lines of the limits a cgroup of each version is given. */
function settings(limit: CgroupLimitName, value: number, version: 1 | 2): Array<[string, string]> {
  if (limit === 'memoryBytes')
    return version === 1
      ? [['memory.limit_in_bytes', String(value)]]
      : [
          ['memory.max', String(value)],
          ['memory.swap.max', '0'],
        ];
  if (limit === 'processes') return [['pids.max', String(value)]];
  const quota = String(Math.max(1000, Math.round(value * CPU_PERIOD_US)));
  return version === 1
    ? [
        ['cpu.cfs_period_us', String(CPU_PERIOD_US)],
        ['cpu.cfs_quota_us', quota],
      ]
    : [['cpu.max', `${quota} ${CPU_PERIOD_US}`]];
}

function writeSetting(directory: string, file: string, value: string, optional = false): void {
  try {
    writeFileSync(join(directory, file), value);
  } catch (error) {
    if (!optional) throw error;
  }
}

/**
 * The cgroups that hold one run's sandbox to its limits: one per controller under this process's own cgroup
 * (so the machine's own limits still hold above it), named `name`. cgroup v1 (a hierarchy per controller, as
 * on this project's machines) and v2 (one hierarchy, where this process's cgroup must offer the controller to
 * its children: the root, or a delegated one) are both used; a limit neither can hold (no permission to make a
 * cgroup there: an unprivileged user without a delegated cgroup) is reported in `enforcement`, never dropped
 * silently. `add` moves a process in: the sandbox's first process, before it starts anything, so that every
 * process of the run is counted.
 */
export class CgroupLimits {
  readonly enforcement: LimitEnforcement = { enforced: [], unenforced: [] };
  private readonly directories = new Map<string, 1 | 2>();

  constructor(
    readonly limits: SandboxLimits,
    name: string,
  ) {
    const own = ownCgroups();
    for (const limit of Object.keys(limits) as LimitName[]) {
      if (limit === 'layerBytes') continue;
      const value = limits[limit];
      if (value === undefined) continue;
      const failures: string[] = [];
      const v1Path = own.v1.get(V1_CONTROLLER[limit]);
      if (
        v1Path !== undefined &&
        this.tryMake(join(CGROUP_ROOT, V1_CONTROLLER[limit], v1Path, name), settings(limit, value, 1), 1, failures)
      ) {
        this.enforcement.enforced.push({ limit, by: 'cgroup v1' });
        continue;
      }
      const v2Root = own.v1.size === 0 ? CGROUP_ROOT : join(CGROUP_ROOT, 'unified');
      if (own.v2 !== undefined && this.offers(join(v2Root, own.v2), V2_CONTROLLER[limit])) {
        if (this.tryMake(join(v2Root, own.v2, name), settings(limit, value, 2), 2, failures)) {
          this.enforcement.enforced.push({ limit, by: 'cgroup v2' });
          continue;
        }
      } else if (own.v2 !== undefined) {
        failures.push(`cgroup v2: this process's cgroup does not offer the ${V2_CONTROLLER[limit]} controller to cgroups under it`);
      }
      if (v1Path === undefined && own.v2 === undefined) failures.push('no cgroup hierarchy is mounted');
      this.enforcement.unenforced.push({ limit, reason: failures.join('; ') });
    }
  }

  /** Whether the v2 cgroup `directory` hands `controller` to its children (its cgroup.subtree_control says so). */
  private offers(directory: string, controller: string): boolean {
    try {
      return readFileSync(join(directory, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes(controller);
    } catch {
      return false;
    }
  }

  private tryMake(directory: string, lines: Array<[string, string]>, version: 1 | 2, failures: string[]): boolean {
    try {
      if (!this.directories.has(directory)) mkdirSync(directory);
      this.directories.set(directory, version);
      for (const [index, [file, value]] of lines.entries()) writeSetting(directory, file, value, index > 0);
      return true;
    } catch (error) {
      failures.push(`cgroup v${version}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} at ${directory}`);
      return false;
    }
  }

  /** Moves process `pid` (and, from then on, what it starts) into every cgroup. */
  add(pid: number): void {
    for (const directory of this.directories.keys()) writeFileSync(join(directory, 'cgroup.procs'), String(pid));
  }

  /** The shell words that move the shell running them into every cgroup first (for a command started by `sh -c`). */
  joinScript(): string {
    return [...this.directories.keys()].map((directory) => `echo $$ > '${join(directory, 'cgroup.procs')}'`).join(' && ');
  }

  /** The limits the run's processes ran into: memory (the kernel killed a process for it), processes (a fork refused). */
  hit(): CgroupLimitName[] {
    const found = new Set<CgroupLimitName>();
    for (const [directory, version] of this.directories) {
      const read = (file: string) => {
        try {
          return readFileSync(join(directory, file), 'utf8');
        } catch {
          return '';
        }
      };
      if (/^max [1-9]/m.test(read('pids.events'))) found.add('processes');
      if (/^oom_kill [1-9]/m.test(read(version === 1 ? 'memory.oom_control' : 'memory.events'))) found.add('memoryBytes');
    }
    return [...found];
  }

  /** Removes the cgroups (once every process in them has ended: the sandbox has stopped). */
  remove(): void {
    for (const directory of this.directories.keys()) {
      try {
        rmdirSync(directory);
      } catch {
        // A process still in it (or gone already): the next engine's clean-up tries again.
      }
    }
    this.directories.clear();
  }
}

/** Removes the empty cgroups named like a sandbox's whose owner `isAbandoned` says is gone, under this process's own. */
export function removeAbandonedCgroups(isAbandoned: (name: string) => boolean): void {
  let own: ReturnType<typeof ownCgroups>;
  try {
    own = ownCgroups();
  } catch {
    return;
  }
  const parents = [...own.v1.entries()].map(([controller, path]) => join(CGROUP_ROOT, controller, path));
  if (own.v2 !== undefined) parents.push(join(own.v1.size === 0 ? CGROUP_ROOT : join(CGROUP_ROOT, 'unified'), own.v2));
  for (const parent of parents) {
    if (!existsSync(parent)) continue;
    let names: string[] = [];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names.filter(isAbandoned)) {
      try {
        rmdirSync(join(parent, name));
      } catch {
        // Not empty, or not ours.
      }
    }
  }
}
