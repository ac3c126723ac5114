import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { safeParseJson } from '@delta/errors';
import { hasProcFileSystem, isProcessAlive, processStartTicks } from '@delta/process-identity';
import { LockOwnerShape } from './json-shapes.js';
import { SessionError } from './session-error.js';
import { readRegularFile } from './session-store.js';

const pollIntervalMs = 15;
/** How long a lock may stay unparseable (its owner between creating and writing it) before it is broken. */
const unreadableLockMs = 2_000;
/** A lock is a line of JSON; anything bigger is not one. */
const maxLockBytes = 4096;

/** Releases the lock; safe to call twice. */
export type ReleaseLock = () => Promise<void>;

export interface ExecLockOptions {
  /** How long to wait for the holder before giving up with `EXEC_TIMEOUT`. */
  waitMs: number;
}

interface LockOwner {
  pid: number;
  token: string;
  startTicks: string | undefined;
}

/**
 * Takes the session's exec lock: a file created with O_EXCL holding the owner's pid and start time. The
 * session directory is tool-writable, so the lock is read as the sessions package reads every file there
 * (regular file only, no link, bounded), and its owner counts only when that pid runs and started at that
 * time: a lock naming a dead, recycled or forged owner is broken, and so is a link, FIFO or device planted
 * in its place. Every wait is bounded by `waitMs`.
 */
export async function acquireExecLock(lockPath: string, options: ExecLockOptions): Promise<ReleaseLock> {
  const token = randomBytes(8).toString('hex');
  const deadline = Date.now() + options.waitMs;
  let unreadableSince: number | undefined;
  let holder: LockOwner | undefined;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      const startTicks = processStartTicks(process.pid);
      await handle.writeFile(
        JSON.stringify({
          pid: process.pid,
          token,
          ...(startTicks === undefined ? {} : { start_ticks: startTicks }),
          acquired_at: new Date().toISOString(),
        }),
      );
      await handle.close();
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await rm(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(lockPath);
    if (owner === 'unreadable') {
      // Being written right now, or its owner died between creating and writing it; or a tool's garbage.
      unreadableSince ??= Date.now();
      if (Date.now() - unreadableSince > unreadableLockMs) await removeLock(lockPath);
    } else if (owner !== 'missing') {
      unreadableSince = undefined;
      holder = owner;
      if (!isOwnerRunning(owner)) await breakStale(lockPath, owner);
    }
    if (Date.now() >= deadline) {
      const who = holder === undefined ? '' : ` by pid ${holder.pid}`;
      throw new SessionError(
        `${lockPath} is still held${who} after ${options.waitMs} ms: another exec is running in the session. Wait for it to finish, or end the session; if no exec runs, remove ${lockPath}.`,
        { code: 'EXEC_TIMEOUT' },
      );
    }
    await sleep(pollIntervalMs);
  }
}

/** The owner runs: that pid is alive and started when the lock says (where /proc can tell). */
function isOwnerRunning(owner: LockOwner): boolean {
  if (hasProcFileSystem() && owner.startTicks === undefined) return false; // written by a tool, not by acquireExecLock
  return isProcessAlive(owner.pid, owner.startTicks);
}

async function breakStale(lockPath: string, owner: LockOwner): Promise<void> {
  // Rename first: of several waiters that all saw the dead owner, only one moves the file away.
  const aside = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch {
    return;
  }
  const moved = await readOwner(aside);
  if (typeof moved === 'object' && moved.token !== owner.token && isOwnerRunning(moved)) {
    // We raced a waiter that had already replaced the stale lock: put its live lock back.
    await rename(aside, lockPath).catch(() => undefined);
    return;
  }
  await rm(aside, { force: true });
}

/** A directory named exec.lock cannot be removed without following what is inside: refused, never recursed into. */
async function removeLock(lockPath: string): Promise<void> {
  try {
    await rm(lockPath, { force: true });
  } catch (error) {
    throw new SessionError(
      `${lockPath} is not a lock file (${(error as NodeJS.ErrnoException).code ?? 'error'}): something other than delta-sessions put it there. Remove it.`,
      { code: 'SESSION_UNTRUSTED', cause: error },
    );
  }
}

async function readOwner(path: string): Promise<LockOwner | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readRegularFile(path, maxLockBytes, "a session's exec lock");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    // A link, FIFO, device or huge file: never a lock this package wrote. It goes at once.
    if (SessionError.isInstance(error) && error.code === 'SESSION_UNTRUSTED') {
      await removeLock(path);
      return 'missing';
    }
    throw error;
  }
  const owner = safeParseJson(text, path, { schema: LockOwnerShape });
  if (!owner.success) return 'unreadable';
  return { pid: owner.data.pid, token: owner.data.token, startTicks: owner.data.start_ticks };
}
