import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, processStartTicks } from '@delta/process-identity';
import { removeAbandonedCgroups } from './cgroup-limits.js';

/**
 * A run sandbox's private /tmp is a directory of this machine's temporary directory, removed when the
 * sandbox stops. An engine killed with SIGKILL never stops its sandbox, so the directory's name says who
 * owns it: `delta-sandbox-tmp-<pid namespace>-<pid>-<start ticks>-<random>`. The name is beyond the
 * tools' reach (the directory is their /tmp, a mount point whose parent they do not see), unlike a file in
 * it. The first sandbox a process starts removes those whose owner is gone: same PID namespace (a pid of
 * another one names a different process), and no process with that pid and start time (a reused pid has
 * another). One whose owner lives, or whose name does not prove it, is never touched; nor, whatever its
 * name, one that is not a directory of this process's user closed to everyone else (see isOurs).
 */
const PREFIX = 'delta-sandbox-tmp-';
const OWNED = /^delta-sandbox-tmp-(\d+)-(\d+)-(\d+)-[A-Za-z0-9]{6}$/;

/** This process's PID namespace (the inode in /proc/self/ns/pid), or '0' where it cannot be read. */
function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
}

/**
 * Where this user's sandboxes keep their private /tmp directories: the machine's temporary directory
 * itself when it is /tmp (which every sandbox covers with its own), otherwise a directory of this user's
 * in it, `delta-sandboxes-<uid>`, that every sandbox covers (see mountArgs): a tool must not see another
 * run's /tmp (its staged environments and inputs), nor lose sight of anything else there.
 */
export function sandboxTmpParent(machineTmp: string): string {
  if (machineTmp === '/tmp') return machineTmp;
  const parent = join(machineTmp, `delta-sandboxes-${process.geteuid?.() ?? 0}`);
  try {
    mkdirSync(parent, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (!isOurs(lstatSync(parent))) {
    throw Object.assign(
      new Error(
        `${parent} is not a directory of this user closed to everyone else, so the run's sandbox cannot keep its private /tmp there: remove it, or set TMPDIR to another directory`,
      ),
      { code: 'EACCES' },
    );
  }
  return parent;
}

/** Creates a sandbox's private /tmp under `parent`, named for this process. */
export function createSandboxTmp(parent: string): string {
  const ticks = processStartTicks(process.pid) ?? '0';
  return mkdtempSync(join(parent, `${PREFIX}${pidNamespace()}-${process.pid}-${ticks}-`));
}

/** Whether the directory named `name` is a sandbox /tmp whose owner is provably gone. */
export function isAbandonedSandboxTmp(name: string, namespace = pidNamespace()): boolean {
  const match = OWNED.exec(name);
  if (!match || match[1] !== namespace || match[3] === '0') return false;
  return !isProcessAlive(Number(match[2]), match[3]);
}

/** Removes the sandbox /tmp directories under `parent` whose owner is gone; returns their paths. */
export function removeAbandonedSandboxTmps(parent: string): string[] {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const namespace = pidNamespace();
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(PREFIX) || !isAbandonedSandboxTmp(name, namespace)) continue;
    try {
      if (removeIfOurs(parent, name)) removed.push(join(parent, name));
    } catch {
      // Another engine's clean-up got there first, or a file in it resists: the next start tries again.
    }
  }
  return removed;
}

/**
 * Whether `stats` are those of a directory (not a link to one) that this process's user owns and nobody
 * else may enter. The name proves nothing (any local user can make one); such a directory does: nobody
 * else can have put anything in it, nor change what is in it while it is removed (a directory swapped for
 * a symbolic link in the middle of a recursive removal would have it remove files elsewhere).
 */
function isOurs(stats: Stats): boolean {
  return stats.isDirectory() && stats.uid === process.geteuid?.() && (stats.mode & 0o077) === 0;
}

/**
 * Removes `parent/name` if it is ours (see isOurs). It is first renamed to a name of this process's own in
 * the same parent, then checked again under that name (the same directory, still ours): whatever the
 * parent allows, the tree removed is the one checked.
 */
function removeIfOurs(parent: string, name: string): boolean {
  const path = join(parent, name);
  const before = lstatSync(path);
  if (!isOurs(before)) return false;
  const claimed = join(parent, `.${PREFIX}removing-${process.pid}-${randomBytes(6).toString('hex')}`);
  renameSync(path, claimed);
  const after = lstatSync(claimed);
  if (!isOurs(after) || after.ino !== before.ino || after.dev !== before.dev) {
    // Not what was checked (swapped in between): put it back, untouched.
    renameSync(claimed, path);
    return false;
  }
  rmSync(claimed, { recursive: true, force: true });
  return true;
}

let cleaned = false;

/** removeAbandonedSandboxTmps, and the cgroups named like them (see cgroup-limits.ts), once per process (at its first sandbox's start). */
export function removeAbandonedSandboxTmpsOnce(parent: string): void {
  if (cleaned) return;
  cleaned = true;
  removeAbandonedSandboxTmps(parent);
  const namespace = pidNamespace();
  removeAbandonedCgroups((name) => name.startsWith(PREFIX) && isAbandonedSandboxTmp(name, namespace));
}
