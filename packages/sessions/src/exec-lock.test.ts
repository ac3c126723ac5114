import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireExecLock } from './exec-lock.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'delta-lock-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('acquireExecLock', () => {
  it('lets one holder in at a time', async () => {
    const lock = join(directory, 'exec.lock');
    const events: string[] = [];
    await Promise.all(
      [1, 2, 3].map(async (n) => {
        const release = await acquireExecLock(lock);
        events.push(`in ${n}`);
        await sleep(30);
        events.push(`out ${n}`);
        await release();
      }),
    );
    for (let index = 0; index < events.length; index += 2) {
      expect(events[index]?.replace('in', 'out')).toBe(events[index + 1]);
    }
  });

  it('breaks a lock whose owner is dead', async () => {
    const lock = join(directory, 'exec.lock');
    const dead = spawnSync('true').pid;
    await writeFile(lock, JSON.stringify({ pid: dead, token: 'old', acquired_at: '2020-01-01T00:00:00Z' }));
    const release = await acquireExecLock(lock);
    expect(JSON.parse(await readFile(lock, 'utf8')).pid).toBe(process.pid);
    await release();
  });
});
