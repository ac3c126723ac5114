import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTicks } from '@delta/process-identity';
import { acquireExecLock } from './exec-lock.js';

let directory: string;
let holder: ChildProcess | undefined;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'delta-lock-'));
});
afterEach(async () => {
  holder?.kill('SIGKILL');
  holder = undefined;
  await rm(directory, { recursive: true, force: true });
});

describe('acquireExecLock', () => {
  it('lets one holder in at a time', async () => {
    const lock = join(directory, 'exec.lock');
    const events: string[] = [];
    await Promise.all(
      [1, 2, 3].map(async (n) => {
        const release = await acquireExecLock(lock, { waitMs: 10_000 });
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
    const release = await acquireExecLock(lock, { waitMs: 10_000 });
    expect(JSON.parse(await readFile(lock, 'utf8')).pid).toBe(process.pid);
    await release();
  });

  it('breaks a lock a tool forged, naming a live pid (1) without or with another start time, at once', async () => {
    const lock = join(directory, 'exec.lock');
    for (const forged of [
      { pid: 1, token: 'forged' },
      { pid: 1, token: 'forged', start_ticks: '123456789' },
    ]) {
      await writeFile(lock, JSON.stringify({ ...forged, acquired_at: '2026-01-01T00:00:00Z' }));
      const started = Date.now();
      const release = await acquireExecLock(lock, { waitMs: 1_000 });
      expect(Date.now() - started).toBeLessThan(500);
      expect(JSON.parse(await readFile(lock, 'utf8'))).toMatchObject({ pid: process.pid, start_ticks: processStartTicks(process.pid) });
      await release();
    }
  });

  it('removes a FIFO or a link planted as the lock without reading through it, and refuses a directory', async () => {
    const lock = join(directory, 'exec.lock');
    const target = join(directory, 'precious');
    await writeFile(target, JSON.stringify({ pid: 1, token: 'x' }));
    for (const plant of [
      () => expect(spawnSync('mkfifo', [lock]).status).toBe(0),
      () => symlink('/dev/zero', lock),
      () => symlink(target, lock),
    ]) {
      await plant();
      const started = Date.now();
      const release = await acquireExecLock(lock, { waitMs: 1_000 });
      expect(Date.now() - started).toBeLessThan(500);
      expect((await lstat(lock)).isFile()).toBe(true);
      await release();
    }
    expect(await readFile(target, 'utf8')).toBe(JSON.stringify({ pid: 1, token: 'x' }));
    await mkdir(lock);
    await expect(acquireExecLock(lock, { waitMs: 1_000 })).rejects.toMatchObject({ code: 'SESSION_UNTRUSTED' });
  });

  it('gives up after waitMs, saying who holds it, when the owner is proven alive', async () => {
    const lock = join(directory, 'exec.lock');
    holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    await new Promise((resolve) => holder!.once('spawn', resolve));
    const pid = holder.pid!;
    await writeFile(lock, JSON.stringify({ pid, token: 't', start_ticks: processStartTicks(pid), acquired_at: '2026-01-01T00:00:00Z' }));
    const started = Date.now();
    await expect(acquireExecLock(lock, { waitMs: 300 })).rejects.toMatchObject({
      code: 'EXEC_TIMEOUT',
      message: expect.stringContaining(`still held by pid ${pid} after 300 ms`),
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
