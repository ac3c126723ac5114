import { lstatSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { asDiskFault, makeDirectory } from '@delta/errors';
import type { RunPaths } from './layout.js';

/** The v1.2 name of a run's `io/` (spec 000 §3.2: renamed in v1.3, "automatic migration"). */
export const LEGACY_IO_DIRECTORY = 'runtime_io';

const RECORD_KINDS = ['invocations', 'tool_executions', 'hooks'] as const;

/** What a migration did, for the journal's SYSTEM_MESSAGE. */
export interface IoMigration {
  /** Records moved from `runtime_io/` into `io/`. */
  moved: number;
  /** Records left in `runtime_io/` because `io/` already has one of the same name. */
  kept: string[];
}

function isRealDirectory(path: string): boolean {
  try {
    // bigint: a FIFO planted here must not corrupt Node 20's shared stat buffer.
    return lstatSync(path, { bigint: true }).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Moves a v1.2 run's `runtime_io/` records into `io/`, where this engine reads and writes them. The whole
 * directory is renamed when there is no `io/` yet; otherwise each record `io/` does not have moves across,
 * and `runtime_io/` goes once it is empty. Rename never follows a symbolic link; a `runtime_io` that is not a
 * real directory is left alone. Undefined when there is nothing to migrate.
 */
export function migrateLegacyIo(paths: RunPaths): IoMigration | undefined {
  const legacy = join(paths.runDir, LEGACY_IO_DIRECTORY);
  if (!isRealDirectory(legacy)) return undefined;
  try {
    const count = (dir: string) =>
      RECORD_KINDS.reduce((sum, kind) => sum + (isRealDirectory(join(dir, kind)) ? readdirSync(join(dir, kind)).length : 0), 0);
    if (!isRealDirectory(paths.ioDir)) {
      const moved = count(legacy);
      renameSync(legacy, paths.ioDir);
      return { moved, kept: [] };
    }
    const migration: IoMigration = { moved: 0, kept: [] };
    for (const kind of RECORD_KINDS) {
      const from = join(legacy, kind);
      if (!isRealDirectory(from)) continue;
      const into = join(paths.ioDir, kind);
      // Records move only into a real directory of the run: never through a link planted as io/<kind>.
      if (lstatExists(into) && !isRealDirectory(into)) {
        migration.kept.push(`${LEGACY_IO_DIRECTORY}/${kind}`);
        continue;
      }
      makeDirectory(into);
      for (const name of readdirSync(from)) {
        const to = join(paths.ioDir, kind, name);
        if (lstatExists(to)) {
          migration.kept.push(`${LEGACY_IO_DIRECTORY}/${kind}/${name}`);
          continue;
        }
        renameSync(join(from, name), to);
        migration.moved += 1;
      }
      removeIfEmpty(from);
    }
    removeIfEmpty(legacy);
    return migration;
  } catch (error) {
    throw asDiskFault(error, legacy);
  }
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path, { bigint: true });
    return true;
  } catch {
    return false;
  }
}

function removeIfEmpty(dir: string): void {
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}

/** The journal's words for a migration. */
export function describeIoMigration(migration: IoMigration): string {
  const records = `${migration.moved} record${migration.moved === 1 ? '' : 's'}`;
  const kept =
    migration.kept.length === 0
      ? ''
      : `; ${migration.kept.length} left in ${LEGACY_IO_DIRECTORY}/ because io/ has a record of the same name (${migration.kept.slice(0, 5).join(', ')}${migration.kept.length > 5 ? ', …' : ''})`;
  return `Migrated this run's v1.2 ${LEGACY_IO_DIRECTORY}/ to io/ (spec v1.3 renamed it): ${records} moved${kept}. References written as ${LEGACY_IO_DIRECTORY}/… in earlier journal lines are now under io/….`;
}
