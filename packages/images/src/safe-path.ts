import { lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { imageError } from './image-error.js';

/**
 * The components of a layer entry's path, relative to the root it is unpacked into: a leading `/` or `./`
 * is dropped (an absolute path in a layer means the same place in the image), `.` components are
 * skipped, and a `..` component or a NUL byte refuses the entry: it could only mean a place outside.
 */
export function entryParts(path: string, where: () => string): string[] {
  if (path.includes('\0')) throw imageError('IMAGE_INVALID', `${where()}: its path holds a NUL byte`);
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw imageError('IMAGE_INVALID', `${where()}: its path ${JSON.stringify(path)} climbs out with ".."`);
  return parts;
}

/** What is at `path` now, never following a link: undefined when nothing. */
export function kindAt(path: string): 'directory' | 'symlink' | 'other' | undefined {
  try {
    const stats = lstatSync(path);
    return stats.isDirectory() ? 'directory' : stats.isSymbolicLink() ? 'symlink' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Makes sure every directory above the entry `parts` exists as a real directory under `root`, creating the
 * missing ones; a link or a file where a directory must be refuses the entry. Nothing is ever written
 * through a link: a layer that makes `etc` a link to `/` cannot then write `etc/passwd` anywhere but refused.
 */
export function parentsOf(root: string, parts: readonly string[], where: () => string): string {
  let directory = root;
  for (const part of parts.slice(0, -1)) {
    directory = join(directory, part);
    const kind = kindAt(directory);
    if (kind === undefined) mkdirSync(directory, { mode: 0o755 });
    else if (kind === 'symlink') throw imageError('IMAGE_INVALID', `${where()}: it would be written through the symbolic link ${part}`);
    else if (kind !== 'directory') throw imageError('IMAGE_INVALID', `${where()}: ${part} above it is not a directory`);
  }
  return directory;
}

/** Removes whatever is at `path` (a directory with everything in it), never following a link. */
export function removeAt(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/** How many entries the directory `path` (absolute, inside `root`) holds, reached through no link; 0 when it is none. */
export function entriesAt(root: string, path: string): number {
  let directory = root;
  for (const part of path.split('/').filter((part) => part !== '' && part !== '.')) {
    if (part === '..') return 0;
    directory = join(directory, part);
    if (kindAt(directory) !== 'directory') return 0;
  }
  return readdirSync(directory).length;
}
