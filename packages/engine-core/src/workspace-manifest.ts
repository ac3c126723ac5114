import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceManifest } from '@delta/journal';
import { SystemError } from '@delta/errors';

/** At most this many entries are listed; past it the listing stops and says how many were left out. */
export const MANIFEST_MAX_ENTRIES = 2_000;
/** At most this many bytes are read for hashes in all; files past it are listed with their size only. */
export const MANIFEST_MAX_HASHED_BYTES = 64 * 1024 * 1024;

/** One entry: a file (size, sha256 unless the hashing budget was spent), a symbolic link (its target) or a directory. */
type ManifestEntry = WorkspaceManifest['entries'][number];

/**
 * The sha256 of a workspace file's first `size` bytes (its size when listed). A tool can swap the file for a
 * FIFO or a link meanwhile: it is opened without following a link or blocking, and must still be a regular file.
 */
function hashFile(file: string, size: number): string {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd, { bigint: true }).isFile()) {
      throw new SystemError(`${file} is no longer a regular file; it is not hashed.`, { code: 'RECORD_REFUSED', file });
    }
    let left = size;
    while (left > 0) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, left), null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      left -= read;
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * Lists the workspace, sorted by path, without `.delta/` (the runs' own records): paths, sizes and
 * content hashes. Links are not followed. Something that cannot be read is listed without a hash.
 */
export function workspaceManifest(workDir: string): WorkspaceManifest {
  const entries: ManifestEntry[] = [];
  let omitted = 0;
  let hashedBytes = 0;
  let complete = true;
  const visit = (relative: string) => {
    let names: string[];
    try {
      names = readdirSync(join(workDir, relative)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      if (path === '.delta') continue;
      if (entries.length >= MANIFEST_MAX_ENTRIES) {
        omitted += 1;
        complete = false;
        continue;
      }
      const absolute = join(workDir, path);
      // bigint: a plain stat of a FIFO or socket leaves Node 20's shared stat buffer so that its module resolver
      // misreads the next lazy import (apps/delta-cli/src/workspace-special-files.e2e.test.ts).
      const stat = lstatSync(absolute, { throwIfNoEntry: false, bigint: true });
      if (!stat) continue;
      if (stat.isSymbolicLink()) {
        entries.push({ path, type: 'link', target: readlinkSync(absolute) });
      } else if (stat.isDirectory()) {
        entries.push({ path, type: 'dir' });
        visit(path);
      } else if (stat.isFile()) {
        const size = Number(stat.size);
        const entry: ManifestEntry = { path, type: 'file', size };
        if (hashedBytes + size <= MANIFEST_MAX_HASHED_BYTES) {
          try {
            entry.sha256 = hashFile(absolute, size);
            hashedBytes += size;
          } catch {
            complete = false;
          }
        } else {
          complete = false;
        }
        entries.push(entry);
      }
    }
  };
  visit('');
  return { entries, complete, omitted };
}

/** How a workspace differs from a recorded manifest: paths missing, changed and extra (empty lists when the same). */
export interface ManifestComparison {
  same: boolean;
  missing: string[];
  changed: string[];
  extra: string[];
  /** True when either manifest was incomplete, so "same" covers only what both list. */
  partial: boolean;
}

function sameEntry(a: ManifestEntry, b: ManifestEntry): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'link') return a.target === b.target;
  if (a.type === 'file') return a.size === b.size && (a.sha256 === undefined || b.sha256 === undefined || a.sha256 === b.sha256);
  return true;
}

export function compareManifests(recorded: WorkspaceManifest, found: WorkspaceManifest): ManifestComparison {
  const byPath = new Map(found.entries.map((entry) => [entry.path, entry]));
  const missing: string[] = [];
  const changed: string[] = [];
  for (const entry of recorded.entries) {
    const other = byPath.get(entry.path);
    byPath.delete(entry.path);
    if (!other) missing.push(entry.path);
    else if (!sameEntry(entry, other)) changed.push(entry.path);
  }
  const extra = [...byPath.keys()];
  return {
    same: missing.length === 0 && changed.length === 0 && extra.length === 0,
    missing,
    changed,
    extra,
    partial: !recorded.complete || !found.complete,
  };
}
