import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isProcessAlive,
  isProcessGroupAlive,
  processIdentity,
  processStartTicks,
  readProcessFile,
  readProcessStat,
  writeProcessFile,
} from './index.js';
import { safeParseProcessFile } from './process-file.js';

const temp = mkdtempSync(join(tmpdir(), 'delta-process-identity-'));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(temp, { recursive: true, force: true });
});

async function start(file: string, args: string[], detached = false): Promise<ChildProcess & { pid: number }> {
  const child = spawn(file, args, { stdio: 'ignore', detached });
  started.push(child);
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return child as ChildProcess & { pid: number };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('readProcessStat', () => {
  it('reads state, parent, group and start time, even when the command name has spaces and parentheses', async () => {
    // The command name (field 2) is the executable's name: one built to break a naive split on spaces.
    const odd = join(temp, 'x) S 1 (y');
    symlinkSync('/bin/sleep', odd);
    const child = await start(odd, ['30'], true);
    await expect
      .poll(() => readProcessStat(child.pid)?.state !== undefined, { timeout: 10_000, interval: 5, message: 'the stat file' })
      .toBe(true);
    const stat = readProcessStat(child.pid)!;
    expect(stat.parentPid).toBe(process.pid);
    expect(stat.processGroup).toBe(child.pid);
    expect(stat.startTicks).toMatch(/^\d+$/);
    expect(['R', 'S']).toContain(stat.state);
    expect(readFileSync(`/proc/${child.pid}/stat`, 'utf8')).toContain('(x) S 1 (y)');
    child.kill('SIGKILL');
    await exited(child);
    expect(readProcessStat(child.pid)).toBeUndefined();
  });

  it('gives this process its own start time, which later processes do not share', async () => {
    const mine = processStartTicks(process.pid);
    expect(mine).toMatch(/^\d+$/);
    const child = await start('sleep', ['30']);
    expect(Number(processStartTicks(child.pid))).toBeGreaterThanOrEqual(Number(mine));
    expect(processIdentity(child.pid)).toEqual({ pid: child.pid, start_ticks: processStartTicks(child.pid) });
    child.kill('SIGKILL');
    await exited(child);
  });
});

describe('isProcessAlive', () => {
  it('is true for a running process, false once it has exited, and false for another start time (a reused pid)', async () => {
    const child = await start('sleep', ['30']);
    const ticks = processStartTicks(child.pid)!;
    expect(isProcessAlive(child.pid)).toBe(true);
    expect(isProcessAlive(child.pid, ticks)).toBe(true);
    expect(isProcessAlive(child.pid, String(Number(ticks) + 1))).toBe(false);
    child.kill('SIGKILL');
    await exited(child);
    expect(isProcessAlive(child.pid)).toBe(false);
    expect(isProcessAlive(child.pid, ticks)).toBe(false);
    expect(isProcessAlive(0)).toBe(false);
    expect(isProcessAlive(-1)).toBe(false);
  });

  it('does not count a zombie, which signal 0 still finds', async () => {
    // sh starts `sleep 0` in the background and becomes `sleep 30`, which never collects its child.
    const parent = await start('sh', ['-c', 'sleep 0 & exec sleep 30']);
    let zombie = 0;
    await expect
      .poll(
        () => {
          const children = readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, 'utf8').trim();
          zombie = Number(children.split(/\s+/)[0] ?? 0);
          return zombie > 0 && readProcessStat(zombie)?.state === 'Z';
        },
        { timeout: 10_000, interval: 5, message: 'the background sleep to become a zombie' },
      )
      .toBe(true);
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(isProcessAlive(zombie)).toBe(false);
    expect(isProcessAlive(parent.pid)).toBe(true);
    parent.kill('SIGKILL');
    await exited(parent);
  });
});

describe('isProcessGroupAlive', () => {
  it('is true while any member of the group runs, false once all are gone', async () => {
    const leader = await start('sh', ['-c', 'sleep 30 & wait'], true);
    expect(isProcessGroupAlive(leader.pid)).toBe(true);
    process.kill(-leader.pid, 'SIGKILL');
    await exited(leader);
    await expect.poll(() => !isProcessGroupAlive(leader.pid), { timeout: 10_000, interval: 5, message: 'the group to be gone' }).toBe(true);
    expect(isProcessGroupAlive(leader.pid)).toBe(false);
    expect(isProcessGroupAlive(0)).toBe(false);
  });
});

describe('process.json', () => {
  it('is written with the start time and read back', async () => {
    const child = await start('sleep', ['30']);
    const file = join(temp, 'process.json');
    writeProcessFile(file, child.pid);
    expect(readFileSync(file, 'utf8')).toBe(`{"pid":${child.pid},"start_ticks":"${processStartTicks(child.pid)}"}\n`);
    const read = readProcessFile(file)!;
    expect(isProcessAlive(read.pid, read.start_ticks)).toBe(true);
    child.kill('SIGKILL');
    await exited(child);
    expect(isProcessAlive(read.pid, read.start_ticks)).toBe(false);
  });

  it('names no process when missing, empty (its writer killed mid-write) or invalid, and says which field', () => {
    const file = join(temp, 'bad-process.json');
    expect(readProcessFile(join(temp, 'missing.json'))).toBeUndefined();
    for (const text of ['', '{"pid":', '{"pid":"12"}', '{"pid":12,"start_ticks":"soon"}', '{"pid":-3}', '[]']) {
      writeFileSync(file, text);
      expect(readProcessFile(file), text).toBeUndefined();
    }
    expect(safeParseProcessFile('{"pid":"12"}')).toEqual({ success: false, problem: expect.stringMatching(/^pid: /) });
    expect(safeParseProcessFile('{"pid":12,"start_ticks":"soon"}')).toEqual({
      success: false,
      problem: expect.stringMatching(/^start_ticks: clock ticks since boot/),
    });
    expect(safeParseProcessFile('{"pid":12,"start_ticks":"345","more":true}')).toEqual({
      success: true,
      data: { pid: 12, start_ticks: '345' },
    });
  });
});
