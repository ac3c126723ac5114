import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readUntrustedFile } from './read-untrusted-file.js';

let directory: string;
let workspace: string;
let outside: string;
const options = () => ({ allowedRoots: [workspace], maxBytes: 1000 });

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'untrusted-file-'));
  workspace = join(directory, 'workspace');
  outside = join(directory, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('readUntrustedFile', () => {
  it('reads a regular file, and one reached through a link that stays inside the allowed directories', () => {
    writeFileSync(join(workspace, 'guide.md'), 'hello');
    symlinkSync('guide.md', join(workspace, 'DELTA.md'));
    expect(readUntrustedFile(join(workspace, 'guide.md'), options())).toMatchObject({ kind: 'file', bytes: Buffer.from('hello') });
    expect(readUntrustedFile(join(workspace, 'DELTA.md'), options())).toMatchObject({ kind: 'file', bytes: Buffer.from('hello') });
  });

  it('says a missing file, or a link to nothing, is missing', () => {
    symlinkSync(join(workspace, 'nowhere'), join(workspace, 'dangling'));
    expect(readUntrustedFile(join(workspace, 'absent'), options()).kind).toBe('missing');
    expect(readUntrustedFile(join(workspace, 'dangling'), options()).kind).toBe('missing');
  });

  it('refuses a link that leaves the allowed directories, naming the path and the target', () => {
    writeFileSync(join(outside, 'secret'), 'host secret');
    symlinkSync(join(outside, 'secret'), join(workspace, 'DELTA.md'));
    const read = readUntrustedFile(join(workspace, 'DELTA.md'), options());
    expect(read.kind).toBe('refused');
    expect(read.kind === 'refused' && read.message).toBe(
      `${join(workspace, 'DELTA.md')} is a symbolic link to ${join(outside, 'secret')}, outside ${workspace}`,
    );
  });

  it('refuses a link through a linked directory that leaves them', () => {
    writeFileSync(join(outside, 'secret'), 'host secret');
    symlinkSync(outside, join(workspace, 'docs'));
    expect(readUntrustedFile(join(workspace, 'docs', 'secret'), options()).kind).toBe('refused');
  });

  it('follows links in a path the user gave outside the allowed directories, but never into /proc', () => {
    writeFileSync(join(outside, 'notes'), 'user notes');
    symlinkSync(join(outside, 'notes'), join(outside, 'link'));
    expect(readUntrustedFile(join(outside, 'link'), options()).kind).toBe('file');
    symlinkSync('/proc/self/environ', join(outside, 'environ'));
    expect(readUntrustedFile(join(outside, 'environ'), options())).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(/^is a symbolic link to \/proc\/\d+\/environ, a system file$/),
    });
  });

  it('refuses /proc files, directly and through a link', () => {
    symlinkSync('/proc/self/environ', join(workspace, 'DELTA.md'));
    const read = readUntrustedFile(join(workspace, 'DELTA.md'), options());
    expect(read.kind === 'refused' && read.reason).toMatch(/symbolic link to \/proc\/\d+\/environ/);
    expect(readUntrustedFile('/proc/self/environ', options()).kind).toBe('refused');
    expect(readUntrustedFile(`/proc/${process.ppid}/environ`, options()).kind).toBe('refused');
  });

  it('refuses a device, at once', () => {
    symlinkSync('/dev/zero', join(workspace, '.env'));
    expect(readUntrustedFile(join(workspace, '.env'), options()).kind).toBe('refused');
    expect(readUntrustedFile('/dev/zero', { allowedRoots: [], maxBytes: 1000 })).toMatchObject({ kind: 'refused' });
  });

  it('refuses a FIFO without waiting for a writer', () => {
    execFileSync('mkfifo', [join(workspace, '.env')]);
    const started = Date.now();
    expect(readUntrustedFile(join(workspace, '.env'), options())).toMatchObject({
      kind: 'refused',
      reason: 'is a FIFO (named pipe), not a regular file',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a socket and a directory', async () => {
    const server: Server = createServer();
    await new Promise<void>((done) => server.listen(join(workspace, 'sock'), done));
    try {
      expect(readUntrustedFile(join(workspace, 'sock'), options())).toMatchObject({
        kind: 'refused',
        reason: expect.stringMatching(/socket/),
      });
    } finally {
      server.close();
    }
    expect(readUntrustedFile(workspace, options())).toMatchObject({ kind: 'refused', reason: 'is a directory, not a regular file' });
  });

  it('refuses a file larger than the bound, and reads one exactly at it', () => {
    writeFileSync(join(workspace, 'big'), 'x'.repeat(1001));
    writeFileSync(join(workspace, 'fits'), 'x'.repeat(1000));
    expect(readUntrustedFile(join(workspace, 'big'), options())).toMatchObject({
      kind: 'refused',
      reason: 'is 1001 bytes, more than the 1000 allowed',
    });
    const fits = readUntrustedFile(join(workspace, 'fits'), options());
    expect(fits.kind === 'file' && fits.bytes.length).toBe(1000);
  });

  it('reads a file larger than one chunk', () => {
    const text = 'y'.repeat(200_000);
    writeFileSync(join(workspace, 'large'), text);
    const read = readUntrustedFile(join(workspace, 'large'), { allowedRoots: [workspace], maxBytes: 1_000_000 });
    expect(read.kind === 'file' && read.bytes.toString()).toBe(text);
  });

  it.each([
    ['through a link (DELTA.md -> d/environ)', 'DELTA.md'],
    ['named plainly (d/environ, no link in its path until d is swapped)', 'd/environ'],
  ])('never reads what a directory swapped for a link between the check and the open leads to: %s', (_, name) => {
    // A racer swaps the directory d with the link dl -> /proc/self (renameat2 RENAME_EXCHANGE) as fast as it
    // can, while DELTA.md -> d/environ is read: each read must give the honest file or a refusal, never
    // this process's environment.
    mkdirSync(join(workspace, 'd'));
    writeFileSync(join(workspace, 'd', 'environ'), 'honest guide\n');
    symlinkSync('/proc/self', join(workspace, 'dl'));
    symlinkSync('d/environ', join(workspace, 'DELTA.md'));
    const racer = spawn(
      'python3',
      [
        '-c',
        'import ctypes, os, sys, time\nlibc = ctypes.CDLL(None, use_errno=True)\nos.chdir(sys.argv[1])\nprint("racing", flush=True)\nend = time.time() + 30\nwhile time.time() < end and not os.path.exists("stop"):\n    libc.renameat2(-100, b"d", -100, b"dl", 2)\n',
        workspace,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      execFileSync('sh', ['-c', 'until [ -e "$1" ]; do sleep 0.01; done', 'sh', join(workspace, 'd')]);
      const counts = { leaked: 0, honest: 0, refused: 0 };
      for (let round = 0; round < 4000; round += 1) {
        const read = readUntrustedFile(join(workspace, name), { allowedRoots: [workspace], maxBytes: 1 << 20 });
        if (read.kind !== 'file') counts.refused += 1;
        // /proc/self/environ: the environment this process started with, PATH in it.
        else if (read.bytes.includes('PATH=')) counts.leaked += 1;
        else counts.honest += 1;
      }
      expect(counts.leaked).toBe(0);
      // The race really ran: some reads were refused or honest on either side of a swap.
      expect(counts.refused).toBeGreaterThan(0);
    } finally {
      writeFileSync(join(workspace, 'stop'), '');
      racer.kill();
    }
  });
});
