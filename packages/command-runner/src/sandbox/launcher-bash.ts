import { chmodSync, copyFileSync, existsSync, linkSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSandboxTmp } from './sandbox-tmp.js';
import { findBash } from './shell-launcher.js';

/**
 * The sandbox's launcher runs a copy of bash that it may not read (mode 0111). The kernel makes a process
 * that runs a program it cannot read non-dumpable, and a fork keeps that: the launcher's and its watchers'
 * /proc/<pid>/fd, memory and environment are closed to every other process of the run, and ptrace and
 * pidfd_getfd on them fail, although every process in there has the same user. So no tool can take the
 * launcher's reply channel or a watcher's descriptors and forge another call's end, exit code or output.
 * A command the launcher starts runs its own, readable, program: an ordinary process again.
 *
 * One copy per engine process while it has sandboxes (each holds a hard link of its own, so the copy goes
 * when the last one stops), in a directory named as a sandbox's private /tmp is (see sandbox-tmp.ts), so
 * that the next engine removes it if this one is killed.
 */
let shared: string | undefined;
let users = 0;

function sharedCopy(parent: string): string {
  if (shared !== undefined && existsSync(shared)) return shared;
  const copy = join(createSandboxTmp(parent), 'bash');
  copyUnreadable(copy);
  shared = copy;
  return copy;
}

function copyUnreadable(path: string): void {
  copyFileSync(findBash(), path);
  chmodSync(path, 0o111);
}

/**
 * Puts the launcher's program at `path`, in a sandbox's own directory under `parent`: a hard link to the
 * process's copy (one inode, so that every sandbox's launcher shares its pages), or, on another file
 * system, a copy of its own.
 */
export function placeLauncherBash(parent: string, path: string): void {
  try {
    linkSync(sharedCopy(parent), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    copyUnreadable(path);
  }
  users += 1;
}

/** Said by a sandbox that stops: the process's copy is removed with the last one. */
export function releaseLauncherBash(): void {
  users = Math.max(0, users - 1);
  if (users > 0 || shared === undefined) return;
  rmSync(dirname(shared), { recursive: true, force: true });
  shared = undefined;
}
