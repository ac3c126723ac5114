import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processStartTicks } from '@delta/process-identity';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireRunLock, RunLockHolder, safeParseRunLockHolder } from './index.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
function lockFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-run-lock-'));
  dirs.push(dir);
  return join(dir, 'engine.lock');
}
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startProcess(args: string[]): Promise<ChildProcess & { pid: number }> {
  const child = spawn(args[0]!, args.slice(1), { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child as ChildProcess & { pid: number };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** The holder a process writes, with its real start time. */
function holderOf(pid: number, host = hostname()): string {
  return `${JSON.stringify({ pid, host, since: '2026-01-01T00:00:00.000Z', start_ticks: processStartTicks(pid) })}\n`;
}

/** A holder that is provably dead: a real process, started, identified, killed and collected. */
async function deadHolder(): Promise<string> {
  const child = await startProcess(['sleep', '30']);
  const text = holderOf(child.pid);
  child.kill('SIGKILL');
  await exited(child);
  return text;
}

function holderIn(file: string): RunLockHolder {
  return RunLockHolder.parse(JSON.parse(readFileSync(file, 'utf8')));
}

describe('acquireRunLock', () => {
  it('writes a complete holder (pid, host, since, start time, lease) and leaves no temporary file', () => {
    const file = lockFile();
    const lock = acquireRunLock(file, 'R1');
    const text = readFileSync(file, 'utf8');
    expect(Object.keys(JSON.parse(text))).toEqual(['pid', 'host', 'since', 'start_ticks', 'lease_until']);
    const leaseLeft = Date.parse(holderIn(file).lease_until!) - Date.now();
    expect(leaseLeft).toBeGreaterThan(20_000);
    expect(leaseLeft).toBeLessThanOrEqual(30_000);
    expect(holderIn(file)).toMatchObject({ pid: process.pid, host: hostname(), start_ticks: processStartTicks(process.pid) });
    expect(new Date(holderIn(file).since).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(readdirSync(join(file, '..'))).toEqual(['engine.lock']);
    lock.release();
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a second engine while the holder is alive, naming its pid and host', async () => {
    const file = lockFile();
    const holder = await startProcess(['sleep', '30']);
    writeFileSync(file, holderOf(holder.pid));
    expect(() => acquireRunLock(file, 'R1')).toThrow(
      new RegExp(`Run R1 is being written by another engine process \\(pid ${holder.pid} on ${hostname()}`),
    );
    // This process holds a lock too: a second acquire of the same run is refused as well.
    const other = lockFile();
    const lock = acquireRunLock(other, 'R2');
    expect(() => acquireRunLock(other, 'R2')).toThrow(/Run R2 is being written by another engine process/);
    lock.release();
  });

  it('takes over a holder that has died, one whose pid a later process reuses, and one that is a zombie', async () => {
    const file = lockFile();
    writeFileSync(file, await deadHolder());
    acquireRunLock(file, 'R1').release();

    // This process is alive, but the lock says its holder started at another time: another process.
    writeFileSync(file, JSON.stringify({ pid: process.pid, host: hostname(), since: 'then', start_ticks: '1' }));
    const lock = acquireRunLock(file, 'R1');
    expect(holderIn(file).since).not.toBe('then');
    lock.release();

    // sh starts `sleep 0` in the background and becomes `sleep 30`, which never collects it: a zombie.
    const parent = await startProcess(['sh', '-c', 'sleep 0 & exec sleep 30']);
    let zombie = 0;
    for (let tries = 0; tries < 2000 && zombie === 0; tries += 1) {
      const found = Number(readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, 'utf8').trim().split(/\s+/)[0] ?? 0);
      if (found > 0 && readFileSync(`/proc/${found}/stat`, 'utf8').includes(') Z ')) zombie = found;
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(zombie).toBeGreaterThan(0);
    writeFileSync(file, JSON.stringify({ pid: zombie, host: hostname(), since: 'then' }));
    acquireRunLock(file, 'R1').release();
  });

  it('never takes over a holder on another host that records no lease, which nothing here can prove dead', async () => {
    const file = lockFile();
    writeFileSync(file, (await deadHolder()).replace(hostname(), 'elsewhere.example'));
    expect(() => acquireRunLock(file, 'R1')).toThrow(/pid \d+ on elsewhere\.example/);
  });

  it('respects a fresh lease from another host and takes an expired one, whatever its pid is here', async () => {
    const file = lockFile();
    const elsewhere = (pid: number, leaseUntil: Date) =>
      `${JSON.stringify({ pid, host: 'elsewhere.example', since: '2026-01-01T00:00:00.000Z', start_ticks: '1', lease_until: leaseUntil.toISOString() })}\n`;
    // A fresh lease: refused, even though its pid is dead here (another host's pid means nothing here).
    const gone = RunLockHolder.parse(JSON.parse(await deadHolder())).pid;
    const fresh = elsewhere(gone, new Date(Date.now() + 60_000));
    writeFileSync(file, fresh);
    let refused: unknown;
    try {
      acquireRunLock(file, 'R1');
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({
      code: 'RUN_LOCKED',
      message: expect.stringMatching(new RegExp(`pid ${gone} on elsewhere\\.example, since .*, its lease runs to `)),
      hint: expect.stringContaining('once the lease has run out'),
    });
    expect(readFileSync(file, 'utf8')).toBe(fresh);

    // An expired lease: taken, even though its pid (this very process) is alive here.
    writeFileSync(file, elsewhere(process.pid, new Date(Date.now() - 1_000)));
    const lock = acquireRunLock(file, 'R1');
    expect(holderIn(file)).toMatchObject({ pid: process.pid, host: hostname() });
    lock.release();
    expect(existsSync(file)).toBe(false);
  });

  it('renews its lease while held, and stops once another holder has the file', async () => {
    const file = lockFile();
    const lock = acquireRunLock(file, 'R1', { leaseMs: 600 });
    const first = holderIn(file).lease_until!;
    // The renewal is the signal: wait for the file to name a later lease.
    await expect.poll(() => holderIn(file).lease_until, { timeout: 10_000, interval: 20 }).not.toBe(first);
    expect(Date.parse(holderIn(file).lease_until!)).toBeGreaterThan(Date.parse(first));
    const taker = `${JSON.stringify({ pid: 1, host: 'elsewhere.example', since: 'now', lease_until: new Date(Date.now() + 60_000).toISOString() })}\n`;
    writeFileSync(file, taker);
    // A negative can only be waited for: four renewal periods later the taker's holder is still there, and release leaves it.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(readFileSync(file, 'utf8')).toBe(taker);
    lock.release();
    expect(readFileSync(file, 'utf8')).toBe(taker);
  });

  it('refuses a lock file that names no holder, saying which file and how to fix it', () => {
    const file = lockFile();
    for (const [text, problem] of [
      ['', 'the file is empty'],
      ['{"pid":', 'not JSON'],
      ['{"pid":12,"since":"then"}', 'host: '],
    ] as const) {
      writeFileSync(file, text);
      let error: unknown;
      try {
        acquireRunLock(file, 'R1');
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({
        code: 'RUN_LOCKED',
        kind: 'configuration',
        message: expect.stringContaining(`The run lock ${file} does not name its holder: ${problem}`),
        hint: expect.stringContaining(`delete ${file}`),
      });
    }
  });

  it('finishes a takeover whose claimant died half-way, and waits for one that is still at it', async () => {
    const file = lockFile();
    const dead = await deadHolder();
    writeFileSync(file, dead);
    const { pid, start_ticks } = holderIn(file);
    const claim = `${file}.takeover-${pid}-${start_ticks}`;
    // A process that claimed the dead holder and died before replacing it.
    writeFileSync(claim, await deadHolder());
    const lock = acquireRunLock(file, 'R1');
    expect(holderIn(file).pid).toBe(process.pid);
    expect(readdirSync(join(file, '..')).sort()).toEqual(['engine.lock']);
    lock.release();

    // A live claimant (a process that will die in a moment): refused while it lives, taken over after.
    writeFileSync(file, dead);
    const claimant = await startProcess(['sleep', '30']);
    writeFileSync(claim, holderOf(claimant.pid));
    expect(() => acquireRunLock(file, 'R1')).toThrow(new RegExp(`pid ${claimant.pid} on `));
    claimant.kill('SIGKILL');
    await exited(claimant);
    acquireRunLock(file, 'R1').release();
  });

  it('releases the lock only while it still names this holder', () => {
    const file = lockFile();
    const lock = acquireRunLock(file, 'R1');
    const other = JSON.stringify({ pid: 1, host: hostname(), since: 'now' });
    writeFileSync(file, other);
    lock.release();
    expect(readFileSync(file, 'utf8')).toBe(other);
  });
});

describe('RunLockHolder', () => {
  it('parses the holder and names the field that is wrong', () => {
    expect(safeParseRunLockHolder('{"pid":3,"host":"h","since":"s","start_ticks":"9"}')).toEqual({
      success: true,
      data: { pid: 3, host: 'h', since: 's', start_ticks: '9' },
    });
    expect(safeParseRunLockHolder('{"pid":3,"host":"","since":"s"}')).toMatchObject({
      success: false,
      problem: expect.stringMatching(/^host: /),
    });
  });
});
