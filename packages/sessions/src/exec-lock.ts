import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { safeParseJson } from '@delta/errors';
import { isProcessAlive } from '@delta/process-identity';
import { LockOwnerShape } from './json-shapes.js';

const pollIntervalMs = 15;
const unreadableLockAgeMs = 5_000;

/** Releases the lock; safe to call twice. */
export type ReleaseLock = () => Promise<void>;

/**
 * Takes the session's exec lock: a file created with O_EXCL holding the owner's pid. A lock whose
 * owner is gone (killed mid-exec) is stale and is broken. Waits as long as it takes: whoever holds
 * the lock is itself bounded by its exec timeout.
 */
export async function acquireExecLock(lockPath: string): Promise<ReleaseLock> {
  const token = randomBytes(8).toString('hex');
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(JSON.stringify({ pid: process.pid, token, acquired_at: new Date().toISOString() }));
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
    await breakIfStale(lockPath);
    await sleep(pollIntervalMs);
  }
}

async function breakIfStale(lockPath: string): Promise<void> {
  const owner = await readOwner(lockPath);
  if (owner === undefined) {
    // Unreadable: being written right now, or its owner died between creating and writing it.
    const written = await stat(lockPath).then(
      (stats) => stats.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - written > unreadableLockAgeMs) await rm(lockPath, { force: true });
    return;
  }
  if (isProcessAlive(owner.pid)) return;
  // Rename first: of several waiters that all saw the dead owner, only one moves the file away.
  const aside = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch {
    return;
  }
  const moved = await readOwner(aside);
  if (moved !== undefined && moved.token !== owner.token && isProcessAlive(moved.pid)) {
    // We raced a waiter that had already replaced the stale lock: put its live lock back.
    await rename(aside, lockPath).catch(() => undefined);
    return;
  }
  await rm(aside, { force: true });
}

async function readOwner(path: string): Promise<{ pid: number; token: string } | undefined> {
  try {
    const owner = safeParseJson(await readFile(path, 'utf8'), path, { schema: LockOwnerShape });
    return owner.success ? { pid: owner.data.pid, token: owner.data.token } : undefined; // or being written right now
  } catch {
    return undefined; // missing
  }
}
