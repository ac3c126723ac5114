import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { processStartTicks } from '@delta/process-identity';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxTmp, isAbandonedSandboxTmp, removeAbandonedSandboxTmps, sandboxTmpParent } from './sandbox-tmp.js';

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
    mkdirSync(abandoned, { mode: 0o700 });
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
    mkdirSync(reused, { mode: 0o700 });
    expect(removeAbandonedSandboxTmps(parent).sort()).toEqual([abandoned, reused].sort());
    expect(existsSync(abandoned)).toBe(false);
    expect(readdirSync(parent).sort()).toEqual([basename(mine), basename(otherNamespace), basename(unnamed), basename(unrelated)].sort());
  });

  it("never removes a planted tree: another user's, one others may enter, or a symbolic link (it would follow a swap during the removal)", async () => {
    const dead = await deadProcess();
    const name = (suffix: string) => join(parent, `delta-sandbox-tmp-${namespace}-${dead.pid}-${dead.ticks}-${suffix}`);
    const victim = mkdtempSync(join(tmpdir(), 'delta-sandbox-tmp-victim-'));
    writeFileSync(join(victim, 'important'), 'kept');
    // Made by another user (nobody), as any local user can: only possible to test as root.
    const foreign = name('Other1');
    mkdirSync(join(foreign, 'sub'), { recursive: true, mode: 0o700 });
    if (process.getuid?.() === 0) chownSync(foreign, 65534, 65534);
    // Ours but open to others (they could swap a directory in it for a link while it is removed).
    const open = name('Open12');
    mkdirSync(join(open, 'sub'), { recursive: true });
    chmodSync(open, 0o777);
    // A symbolic link with the name.
    const link = name('Link12');
    symlinkSync(victim, link);
    const proper = name('Mine12');
    mkdirSync(proper, { mode: 0o700 });
    expect(removeAbandonedSandboxTmps(parent)).toEqual([proper]);
    expect(existsSync(join(process.getuid?.() === 0 ? foreign : open, 'sub'))).toBe(true);
    expect(existsSync(join(open, 'sub'))).toBe(true);
    expect(readFileSync(join(victim, 'important'), 'utf8')).toBe('kept');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    // Nothing of ours is left under another name either.
    expect(readdirSync(parent).filter((entry) => entry.startsWith('.'))).toEqual([]);
    for (const path of [foreign, open, link, victim]) rmSync(path, { recursive: true, force: true });
  });

  it('keeps the sandboxes of a temporary directory other than /tmp in a directory of their own, refusing one not ours', () => {
    const machineTmp = mkdtempSync(join(tmpdir(), 'delta-sandbox-parent-'));
    try {
      expect(sandboxTmpParent('/tmp')).toBe('/tmp');
      const parent = sandboxTmpParent(machineTmp);
      expect(parent).toBe(join(machineTmp, `delta-sandboxes-${process.geteuid!()}`));
      expect(lstatSync(parent).mode & 0o777).toBe(0o700);
      // Again: the same one.
      expect(sandboxTmpParent(machineTmp)).toBe(parent);
      // One that others may enter (or a link, or a file) is not used: a clear error naming it.
      chmodSync(parent, 0o755);
      expect(() => sandboxTmpParent(machineTmp)).toThrow(`${parent} is not a directory of this user closed to everyone else`);
      rmSync(parent, { recursive: true });
      symlinkSync(machineTmp, parent);
      expect(() => sandboxTmpParent(machineTmp)).toThrow(/is not a directory of this user/);
    } finally {
      rmSync(machineTmp, { recursive: true, force: true });
    }
  });
});
