import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemError } from '@delta/errors';

/** A small tmpfs of its own, to fill up or to make read-only, as a real disk would be. */
export interface SmallDisk {
  /** Where it is mounted (a fresh directory under the system temp directory). */
  readonly dir: string;
  /** `mount -o remount,ro` or `rw`: every write on it then fails with EROFS, or works again. */
  remount(mode: 'ro' | 'rw'): void;
  /** Unmounts it (lazily, should a process still use it) and removes the directory; safe to call twice. */
  unmount(): void;
}

function run(command: string, args: string[]): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stderr ?? ''}${result.stdout ?? ''}${result.error?.message ?? ''}`.trim() };
}

/**
 * Mounts a tmpfs of `size` (as `mount -o size=` reads it: `3m`) on a new temp directory. Mounting needs
 * root (as in CI); elsewhere the answer is `{ skip }`, the reason, for a test to skip loudly with.
 */
export function mountSmallDisk(size: string): SmallDisk | { skip: string } {
  if (process.platform !== 'linux') return { skip: `a tmpfs is mounted only on Linux (this is ${process.platform})` };
  if (process.getuid?.() !== 0) return { skip: 'mounting a tmpfs needs root, and these tests do not run as root' };
  const dir = mkdtempSync(join(tmpdir(), 'delta-small-disk-'));
  const mounted = run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (!mounted.ok) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `mount -t tmpfs failed: ${mounted.output}` };
  }
  let active = true;
  return {
    dir,
    remount(mode) {
      const result = run('mount', ['-o', `remount,${mode}`, dir]);
      if (!result.ok)
        throw new SystemError(`mount -o remount,${mode} ${dir} failed: ${result.output}`, { code: 'DISK_NOT_PERMITTED', file: dir });
    },
    unmount() {
      if (!active) return;
      active = false;
      run('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Whether `chattr +i` (the immutable attribute) works in `dir`: it needs root and a file system that
 * has it (ext4 does; tmpfs and overlayfs do not). Undefined when it does, else why not.
 */
export function immutableUnsupported(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return 'chattr +i needs root, and these tests do not run as root';
  const probe = join(dir, '.delta-immutable-probe');
  writeFileSync(probe, '');
  try {
    const set = run('chattr', ['+i', probe]);
    if (!set.ok) return `chattr +i does not work in ${dir}: ${set.output}`;
    run('chattr', ['-i', probe]);
    return undefined;
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Sets (`+i`) or clears (`-i`) a file's immutable attribute, as root. */
export function setImmutable(file: string, immutable: boolean): void {
  const result = run('chattr', [immutable ? '+i' : '-i', file]);
  if (!result.ok)
    throw new SystemError(`chattr ${immutable ? '+i' : '-i'} ${file} failed: ${result.output}`, { code: 'DISK_NOT_PERMITTED', file });
}
