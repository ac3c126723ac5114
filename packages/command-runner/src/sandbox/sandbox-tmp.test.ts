import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { processStartTicks } from '@delta/process-identity';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxTmp, isAbandonedSandboxTmp, removeAbandonedSandboxTmps } from './sandbox-tmp.js';

const parent = mkdtempSync(join(tmpdir(), 'delta-sandbox-tmp-test-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))![1]!;

/** A process that has exited: its pid and start time, as its sandbox /tmp would be named. */
async function deadProcess(): Promise<{ pid: number; ticks: string }> {
  const child = spawn('sleep', ['30']);
  await new Promise((resolve) => child.once('spawn', resolve));
  const pid = child.pid!;
  const ticks = processStartTicks(pid)!;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return { pid, ticks };
}

describe('sandbox /tmp directories', () => {
  it("are named for their owner: this process's PID namespace, pid and start time", () => {
    const dir = createSandboxTmp(parent);
    expect(basename(dir)).toMatch(
      new RegExp(`^delta-sandbox-tmp-${namespace}-${process.pid}-${processStartTicks(process.pid)}-[A-Za-z0-9]{6}$`),
    );
    expect(isAbandonedSandboxTmp(basename(dir))).toBe(false);
    rmSync(dir, { recursive: true });
  });

  it('are removed once their owner is gone (a SIGKILLed engine); never while it lives, nor when the name proves nothing', async () => {
    const dead = await deadProcess();
    const abandoned = join(parent, `delta-sandbox-tmp-${namespace}-${dead.pid}-${dead.ticks}-AbC123`);
    // What a tool left in its /tmp.
    mkdirSync(join(abandoned, 'deep', 'er'), { recursive: true });
    writeFileSync(join(abandoned, 'deep', 'er', 'file'), 'x');
    const mine = createSandboxTmp(parent);
    // A pid reused since by another process (this one, with another start time): its owner is gone too.
    // Another PID namespace (pids there name other processes), the old unnamed kind, an unrelated
    // directory, and this live process's own: kept.
    const reused = join(parent, `delta-sandbox-tmp-${namespace}-${process.pid}-${Number(processStartTicks(process.pid)) + 1}-AbC123`);
    const otherNamespace = join(parent, `delta-sandbox-tmp-1${namespace}-${dead.pid}-${dead.ticks}-AbC123`);
    const unnamed = join(parent, 'delta-sandbox-tmp-AbC123');
    const unrelated = join(parent, 'something-else');
    for (const dir of [otherNamespace, unnamed, unrelated]) mkdirSync(dir);
    mkdirSync(reused);
    expect(removeAbandonedSandboxTmps(parent).sort()).toEqual([abandoned, reused].sort());
    expect(existsSync(abandoned)).toBe(false);
    expect(readdirSync(parent).sort()).toEqual([basename(mine), basename(otherNamespace), basename(unnamed), basename(unrelated)].sort());
  });
});
