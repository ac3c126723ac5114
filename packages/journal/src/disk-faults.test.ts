import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeltaError } from '@delta/errors';
import { JournalWriter, MetadataFile, readJournal, readMetadata, writeMetadata, type RunMetadata } from './index.js';

// Real disk faults: a 1 MB tmpfs filled up or remounted read-only, an immutable file (chattr +i). Both
// need root, as in CI; elsewhere these tests skip, loudly.
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function sh(command: string, ...args: string[]): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stderr}${result.stdout}`.trim() };
}

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-journal-disk-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A 1 MB tmpfs, or why there cannot be one here. */
function smallDisk(): { dir: string } | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'mounting a tmpfs needs root, and these tests do not run as root' };
  const dir = temp();
  const mounted = sh('mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir);
  if (!mounted.ok) return { skip: `mount -t tmpfs failed: ${mounted.output}` };
  cleanups.push(() => sh('umount', '-l', dir));
  return { dir };
}

function skipLoudly(reason: string): void {
  console.warn(`\n!!! SKIPPED a disk-fault test of @delta/journal: ${reason}\n`);
}

/** Fills the disk: a file as large as it will grow. */
function fill(dir: string): void {
  try {
    writeFileSync(join(dir, 'filler'), Buffer.alloc(4 * 1024 * 1024, 1));
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    return;
  }
  throw new Error('the disk took 4 MB: it is not the small disk it should be');
}

function fault(action: () => unknown): DeltaError {
  try {
    action();
  } catch (error) {
    if (DeltaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('no error was thrown');
}

function metadataOf(dir: string): RunMetadata {
  const now = new Date().toISOString();
  return {
    schema_version: '1.3',
    run_id: '20260101_000000_aaaaaa',
    workspace_id: null,
    agent_name: 'agent',
    status: 'RUNNING',
    created_at: now,
    updated_at: now,
    end_time: null,
    initial_message: 'go',
    iterations: 3,
    max_iterations: 30,
    error: null,
    agent_home: dir,
    work_dir: dir,
  };
}

describe('a full disk', () => {
  it('an append it cuts short is removed again: the journal keeps whole lines, and a shorter event still fits', () => {
    const disk = smallDisk();
    if ('skip' in disk) return skipLoudly(disk.skip);
    const file = join(disk.dir, 'journal.jsonl');
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'first' });
    fill(disk.dir);
    const size = readFileSync(file).length;

    // Longer than what is left of the journal's last block: the disk takes part of it, then refuses.
    const error = fault(() => writer.append({ type: 'USER_MESSAGE', content: 'x'.repeat(6000) }));
    expect(error.code).toBe('DISK_FULL');
    expect(error.message).toBe(`Cannot write ${file}: no space left on device (ENOSPC).`);
    expect(error.file).toBe(file);
    expect(error.hint).toContain(`df -h ${disk.dir}`);
    expect(readFileSync(file).length).toBe(size);

    // The end of a run is short: it fits in what is left, right after the last whole line.
    writer.append({ type: 'ENGINE_END', run_id: '20260101_000000_aaaaaa', status: 'FAILED', final_iteration: 1, reason: error.message });
    writer.close();
    expect(readJournal(file).map((event) => [event.seq, event.type])).toEqual([
      [1, 'USER_MESSAGE'],
      [2, 'ENGINE_END'],
    ]);
  });

  it('metadata.json: a status change is written over the old file, which needs no new space, and no temporary file is left', () => {
    const disk = smallDisk();
    if ('skip' in disk) return skipLoudly(disk.skip);
    const file = join(disk.dir, 'metadata.json');
    writeMetadata(file, metadataOf(disk.dir));
    fill(disk.dir);
    // The atomic way (a new file renamed over the old one) has no room.
    expect(fault(() => writeMetadata(file, { ...metadataOf(disk.dir), status: 'FAILED' })).code).toBe('DISK_FULL');
    expect(readMetadata(file).status).toBe('RUNNING');

    const metadata = new MetadataFile(file);
    metadata.update({ status: 'FAILED', error: `Cannot write ${file}: no space left on device (ENOSPC).`, exit_code: 1 });
    metadata.close();
    expect(readMetadata(file)).toMatchObject({ status: 'FAILED', error: expect.stringContaining('no space'), exit_code: 1 });
    expect(readdirSync(disk.dir).sort()).toEqual(['filler', 'metadata.json']);
  });
});

describe('a read-only disk', () => {
  it('refuses every write with an error that names the file and says to remount; the files stay as they were', () => {
    const disk = smallDisk();
    if ('skip' in disk) return skipLoudly(disk.skip);
    const journal = join(disk.dir, 'journal.jsonl');
    const metadataFile = join(disk.dir, 'metadata.json');
    const writer = JournalWriter.open(journal);
    writer.append({ type: 'USER_MESSAGE', content: 'first' });
    writer.close();
    writeMetadata(metadataFile, metadataOf(disk.dir));
    const remounted = sh('mount', '-o', 'remount,ro', disk.dir);
    expect(remounted.output).toBe('');

    const reopened = JournalWriter.open(journal);
    const appendError = fault(() => reopened.append({ type: 'USER_MESSAGE', content: 'second' }));
    expect(appendError).toMatchObject({
      code: 'DISK_READ_ONLY',
      file: journal,
      message: `Cannot write ${journal}: read-only file system (EROFS).`,
    });
    expect(appendError.hint).toContain('mount -o remount,rw');
    const updateError = fault(() => new MetadataFile(metadataFile).update({ status: 'FAILED' }));
    expect(updateError).toMatchObject({ code: 'DISK_READ_ONLY', file: metadataFile });
    expect(readJournal(journal)).toHaveLength(1);
    expect(readMetadata(metadataFile).status).toBe('RUNNING');
    sh('mount', '-o', 'remount,rw', disk.dir);
  });
});

describe('an immutable journal', () => {
  it('refuses the append with an error that names it and says how to remove the attribute', () => {
    const dir = temp();
    const journal = join(dir, 'journal.jsonl');
    const writer = JournalWriter.open(journal);
    writer.append({ type: 'USER_MESSAGE', content: 'first' });
    if (process.getuid?.() !== 0) return skipLoudly('chattr +i needs root, and these tests do not run as root');
    const set = sh('chattr', '+i', journal);
    if (!set.ok) return skipLoudly(`chattr +i does not work in ${dir} (${set.output}); ext4 has it, tmpfs and overlayfs do not`);
    cleanups.push(() => sh('chattr', '-i', journal));

    // The journal was open already: the attribute stops the next write all the same.
    const error = fault(() => writer.append({ type: 'USER_MESSAGE', content: 'second' }));
    expect(error).toMatchObject({
      code: 'DISK_NOT_PERMITTED',
      file: journal,
      message: `Cannot write ${journal}: operation not permitted (EPERM).`,
    });
    expect(error.hint).toContain(`chattr -i ${journal}`);
    expect(existsSync(journal)).toBe(true);
    expect(readJournal(journal)).toHaveLength(1);
  });
});
