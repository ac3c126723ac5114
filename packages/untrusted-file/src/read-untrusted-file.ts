import { type BigIntStats, closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

export interface UntrustedFileOptions {
  /**
   * The directories a symbolic link may lead into (the workspace, the agent directory). A path inside
   * one of them that resolves, through any link, to a place outside all of them is refused. A path
   * outside all of them (one the user configured) may go through links, but never into /proc, /sys or /dev.
   */
  allowedRoots: readonly string[];
  /** Larger files are refused, not read. */
  maxBytes: number;
}

/** What reading a file a tool could have written gave: its bytes, nothing there, or a refusal that says why. */
export type UntrustedFile =
  | { kind: 'file'; path: string; bytes: Buffer }
  | { kind: 'missing'; path: string }
  | { kind: 'refused'; path: string; reason: string; message: string };

/** Kernel and device file systems: what they hold is never a file a user meant the engine to read. */
const SYSTEM_DIRECTORIES = ['/proc', '/sys', '/dev'];

function isWithin(path: string, directory: string): boolean {
  const rest = relative(directory, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

function realDirectory(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return resolve(directory);
  }
}

function describeKind(stats: BigIntStats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** The path the kernel says an open file descriptor has (Linux); undefined where /proc cannot say. */
function openedPath(descriptor: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}

function refused(path: string, reason: string): UntrustedFile {
  return { kind: 'refused', path, reason, message: `${path} ${reason}` };
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The file's bytes to its end, or undefined past `maxBytes` (it grew after fstat said its size). */
function readAtMost(descriptor: number, maxBytes: number, expected: number): Buffer | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // One byte past the limit is enough to know the file is too long.
    const chunk = Buffer.alloc(Math.min(Math.max(expected - total, 65_536), maxBytes - total + 1));
    const count = readSync(descriptor, chunk, 0, chunk.length, null);
    if (count === 0) return Buffer.concat(chunks, total);
    chunks.push(count === chunk.length ? chunk : chunk.subarray(0, count));
    total += count;
    if (total > maxBytes) return undefined;
  }
}

/** Where the path really leads, or why it is not read. */
function checkPath(path: string, options: UntrustedFileOptions): { real: string } | UntrustedFile {
  try {
    // bigint: a plain stat of a FIFO or socket leaves Node 20's shared stat buffer so that its module resolver
    // misreads the next lazy import (apps/delta-cli/src/workspace-special-files.e2e.test.ts).
    lstatSync(path, { bigint: true });
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing', path };
    return refused(path, `cannot be examined (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    // A link to nothing is nothing to read.
    if (isMissing(error)) return { kind: 'missing', path };
    return refused(path, `cannot be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (SYSTEM_DIRECTORIES.some((directory) => isWithin(real, directory))) {
    return refused(path, real === path ? 'is a system file, not a regular file' : `is a symbolic link to ${real}, a system file`);
  }
  if (real !== path) {
    const roots = options.allowedRoots.map((root) => resolve(root));
    const inside = roots.some((root) => isWithin(path, root) || isWithin(path, realDirectory(root)));
    if (inside && !roots.some((root) => isWithin(real, realDirectory(root)))) {
      return refused(path, `is a symbolic link to ${real}, outside ${roots.join(' and ')}`);
    }
  }
  // Examined before it is opened: opening a FIFO or a socket is itself an effect.
  let stats: BigIntStats;
  try {
    stats = lstatSync(real, { bigint: true });
  } catch (error) {
    // Removed or renamed over since (a lock released, a record rewritten): read as it is now, missing.
    if (isMissing(error)) return { kind: 'missing', path };
    return refused(path, `cannot be examined (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (!stats.isFile()) return refused(path, `is ${describeKind(stats)}, not a regular file`);
  return { real };
}

/**
 * Reads a file a tool could have written, as hostile input: a regular file only (never a device, FIFO,
 * socket or /proc file), never through a link that leaves the allowed directories, at most `maxBytes`,
 * and without ever blocking (opened non-blocking and without following a last link, examined with
 * fstat before a byte is read). Never throws: a refusal says why, naming the path.
 */
export function readUntrustedFile(file: string, options: UntrustedFileOptions): UntrustedFile {
  const path = resolve(file);
  const checked = checkPath(path, options);
  if ('kind' in checked) return checked;
  let descriptor: number;
  try {
    descriptor = openSync(checked.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing', path };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return refused(path, 'became a symbolic link while it was being opened');
    return refused(path, `cannot be opened (${code ?? String(error)})`);
  }
  try {
    // O_NOFOLLOW guards the last component only: a tool that swaps a directory on the way for a link
    // (to /proc/self, say) between the check and the open is caught by what was really opened.
    const opened = openedPath(descriptor);
    // Removed since it was opened (a lock released, a record rewritten): read as it is now, missing.
    if (opened === `${checked.real} (deleted)`) return { kind: 'missing', path };
    if (opened !== undefined && opened !== checked.real) return refused(path, `changed while it was being opened (it led to ${opened})`);
    const stats = fstatSync(descriptor, { bigint: true });
    if (!stats.isFile()) return refused(path, `is ${describeKind(stats)}, not a regular file`);
    const size = Number(stats.size);
    if (size > options.maxBytes) {
      return refused(path, `is ${size} bytes, more than the ${options.maxBytes} allowed`);
    }
    const bytes = readAtMost(descriptor, options.maxBytes, size);
    if (bytes === undefined) return refused(path, `grew past the ${options.maxBytes} bytes allowed while it was read`);
    return { kind: 'file', path, bytes };
  } catch (error) {
    return refused(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  } finally {
    closeSync(descriptor);
  }
}
