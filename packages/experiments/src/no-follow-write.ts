import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  symlinkSync,
  readdirSync,
  readlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, diskWrite } from '@delta/errors';

// A batch writes a task's workspace into OUT before its run starts. What it writes there comes from a TASKS
// file and a task's `workspace` directory, which a tool (of this batch or another) may have written: so
// no write ever goes through a symbolic link, at any component of its path.

const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function refused(path: string, problem: string): ConfigurationError {
  return new ConfigurationError(`Cannot write ${path}: ${problem}; a task's files are never written through a symbolic link.`, {
    code: 'DATASET_INVALID',
    file: path,
    hint: 'Remove the link from the task workspace directory (or name another path in files:), then run the batch again.',
  });
}

/** What stands at `path` without following a link: absent, a directory, a link, or something else. */
function kindAt(path: string): 'none' | 'directory' | 'link' | 'other' {
  try {
    // bigint: a plain lstat of a FIFO or socket misleads Node 20's module resolver (@delta/untrusted-file).
    const stat = lstatSync(path, { bigint: true });
    return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'directory' : 'other';
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return 'none';
    throw error;
  }
}

/**
 * The first component of `relative` under `root` that is a symbolic link (or a file where a directory is
 * needed), in words; undefined when the path can be written. Reads only.
 */
export function linkOnPath(root: string, relative: string): string | undefined {
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  let path = root;
  for (const [index, part] of parts.entries()) {
    path = join(path, part);
    const kind = kindAt(path);
    if (kind === 'none') return undefined;
    if (kind === 'link') return `${path} is a symbolic link (to ${readlinkSync(path)})`;
    if (kind === 'other' && index < parts.length - 1) return `${path} is a file, not a directory`;
  }
  return undefined;
}

/** Makes `directory` (one component) unless it is there as a real directory; a link or a file there is refused. */
function directoryNoFollow(directory: string): void {
  const kind = kindAt(directory);
  if (kind === 'directory') return;
  if (kind === 'link') throw refused(directory, `it is a symbolic link (to ${readlinkSync(directory)})`);
  if (kind === 'other') throw refused(directory, 'it is a file, not a directory');
  diskWrite(directory, () => mkdirSync(directory));
}

/** Writes `content` at `relative` under `root` (which must exist), making directories on the way; never through a link. */
export function writeFileNoFollow(root: string, relative: string, content: string | Uint8Array): void {
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  let directory = root;
  for (const part of parts.slice(0, -1)) {
    directory = join(directory, part);
    directoryNoFollow(directory);
  }
  const file = join(directory, parts.at(-1)!);
  diskWrite(file, () => {
    let descriptor: number;
    try {
      descriptor = openSync(file, WRITE_FLAGS, 0o644);
    } catch (error) {
      if (errnoOf(error) === 'ELOOP') throw refused(file, `it is a symbolic link (to ${readlinkSync(file)})`);
      throw error;
    }
    try {
      if (!fstatSync(descriptor, { bigint: true }).isFile()) throw refused(file, 'it is not a regular file');
      const bytes = typeof content === 'string' ? Buffer.from(content) : content;
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(descriptor, bytes, offset);
    } finally {
      closeSync(descriptor);
    }
  });
}

const COPY_BUFFER = 1024 * 1024;
/** The grain of holes: a page of zeros is left unwritten (a hole in the copy), as `cp --sparse=always` does. */
const PAGE = 4096;
const ZEROS = Buffer.alloc(PAGE);

/**
 * Copies `input` to `output` (empty, just opened) keeping holes: each page of zeros is skipped rather than
 * written, and the length set at the end. Node has no SEEK_DATA, so holes are read (as zeros), never written.
 */
function copySparse(input: number, output: number): void {
  const buffer = Buffer.allocUnsafe(COPY_BUFFER);
  let position = 0;
  for (let read = readSync(input, buffer, 0, COPY_BUFFER, null); read > 0; read = readSync(input, buffer, 0, COPY_BUFFER, null)) {
    // Runs of pages holding data are written at their place; pages of zeros are left as holes.
    let start = 0;
    while (start < read) {
      while (start < read && isZeroPage(buffer, start, read)) start += PAGE;
      let end = start;
      while (end < read && !isZeroPage(buffer, end, read)) end += PAGE;
      end = Math.min(end, read);
      for (let offset = start; offset < end; ) offset += writeSync(output, buffer, offset, end - offset, position + offset);
      start = end;
    }
    position += read;
  }
  // The length, holes at the end included.
  ftruncateSync(output, position);
}

function isZeroPage(buffer: Buffer, start: number, read: number): boolean {
  const end = Math.min(start + PAGE, read);
  return buffer.subarray(start, end).equals(ZEROS.subarray(0, end - start));
}

function copyFileNoFollow(source: string, destination: string, mode: number): void {
  const input = openSync(source, READ_FLAGS);
  try {
    diskWrite(destination, () => {
      let output: number;
      try {
        output = openSync(destination, WRITE_FLAGS, mode & 0o777);
      } catch (error) {
        if (errnoOf(error) === 'ELOOP') throw refused(destination, `it is a symbolic link (to ${readlinkSync(destination)})`);
        throw error;
      }
      try {
        copySparse(input, output);
      } finally {
        closeSync(output);
      }
    });
  } finally {
    closeSync(input);
  }
}

/**
 * Copies the directory `source` into `destination` (which must exist): directories and regular files
 * copied, symbolic links copied as the same link (their target as written, never followed, neither to
 * read nor to write), anything else (a FIFO, a device, a socket) refused. `skip` leaves an entry out.
 */
export function copyDirectoryNoFollow(source: string, destination: string, skip: (name: string) => boolean): void {
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const from = join(source, entry.name);
    const to = join(destination, entry.name);
    const stat = lstatSync(from, { bigint: true });
    if (stat.isSymbolicLink()) {
      const target = readlinkSync(from);
      const there = kindAt(to);
      if (there === 'directory') throw refused(to, 'a directory is there already, where the task has a link');
      // A link or file left by an earlier attempt at preparing this workspace: unlink() never follows it.
      diskWrite(to, () => {
        if (there !== 'none') unlinkSync(to);
        symlinkSync(target, to);
      });
    } else if (stat.isDirectory()) {
      directoryNoFollow(to);
      copyDirectoryNoFollow(from, to, skip);
    } else if (stat.isFile()) {
      copyFileNoFollow(from, to, Number(stat.mode));
    } else {
      throw new ConfigurationError(`The task workspace directory holds ${from}, which is neither a file, a directory nor a link.`, {
        code: 'DATASET_INVALID',
        file: from,
        hint: 'A task workspace may hold files, directories and symbolic links only: remove it (a FIFO, a device or a socket).',
      });
    }
  }
}
