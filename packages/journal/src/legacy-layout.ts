import { existsSync, lstatSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asDiskFault, diskWrite } from '@delta/errors';
import type { RunPaths } from './layout.js';
import { CONTROL_PLANE_VERSION, readMetadata, writeMetadata } from './metadata.js';
import { readRunRecord, SMALL_RECORD_MAX_BYTES } from './read-record.js';
import { isRunId } from './run-id.js';

/**
 * The v1.2 control plane (spec 003 §2.1): `.delta/runs/<id>/execution/{journal.jsonl,metadata.json,engine.log}`,
 * `runtime_io/` and `interaction/` beside `execution/`, `.delta/runs/LATEST`, `.delta/schema_version.txt`.
 * Such runs are read where they are, and moved to the v1.3 layout by the first command that writes to them.
 */
export const LEGACY_RUNS_DIRECTORY = 'runs';
const EXECUTION = 'execution';
const LEGACY_VERSION_FILE = 'schema_version.txt';

function isRealDirectory(path: string): boolean {
  try {
    // bigint: a FIFO planted here must not corrupt Node 20's shared stat buffer.
    return lstatSync(path, { bigint: true }).isDirectory();
  } catch {
    return false;
  }
}

function runsDirectory(workDir: string): string {
  return join(workDir, '.delta', LEGACY_RUNS_DIRECTORY);
}

/** Whether `runId` is a v1.2 run of the workspace, not yet migrated (a v1.3 run of the same id wins). */
export function isLegacyRun(workDir: string, runId: string): boolean {
  return isRunId(runId) && !existsSync(join(workDir, '.delta', runId)) && isRealDirectory(join(runsDirectory(workDir), runId, EXECUTION));
}

/** Where a v1.2 run's files are, for reading it in place. */
export function legacyRunPaths(workDir: string, runId: string): RunPaths {
  const runDir = join(runsDirectory(workDir), runId);
  const execution = join(runDir, EXECUTION);
  const ioDir = join(runDir, 'runtime_io');
  return {
    workDir,
    controlDir: join(workDir, '.delta'),
    runId,
    runDir,
    journal: join(execution, 'journal.jsonl'),
    metadata: join(execution, 'metadata.json'),
    engineLog: join(execution, 'engine.log'),
    ioDir,
    invocationsDir: join(ioDir, 'invocations'),
    toolExecutionsDir: join(ioDir, 'tool_executions'),
    hooksDir: join(ioDir, 'hooks'),
    interactionDir: join(runDir, 'interaction'),
    lock: join(runDir, 'engine.lock'),
  };
}

/** The v1.2 runs of a workspace not yet migrated. */
export function listLegacyRunIds(workDir: string): string[] {
  const dir = runsDirectory(workDir);
  if (!isRealDirectory(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isLegacyRun(workDir, entry.name))
    .map((entry) => entry.name);
}

/** The run id in v1.2's `.delta/runs/LATEST`, if any. */
export function readLegacyLatestRunId(workDir: string): string | undefined {
  const value = readRunRecord(join(runsDirectory(workDir), 'LATEST'), SMALL_RECORD_MAX_BYTES)
    ?.toString('utf8')
    .trim();
  return value === undefined || value === '' ? undefined : value;
}

/** What moving a v1.2 run to the v1.3 layout did, for the journal's SYSTEM_MESSAGE. */
export interface LegacyRunMigration {
  runId: string;
  /** Files and directories moved out of `execution/` to the run's directory. */
  moved: string[];
  /** Those left in `execution/` because the run's directory already had one of the same name. */
  kept: string[];
}

/**
 * Moves a v1.2 run to where v1.3 keeps it: `.delta/runs/<id>/` becomes `.delta/<id>/` (with everything in it,
 * `runtime_io/`, `interaction/` and `configuration/` included), `execution/`'s files move up into it, and
 * metadata.json says schema_version 1.3. `runtime_io/` is left for migrateLegacyIo. LATEST and VERSION are
 * written where v1.3 reads them when missing; `runs/LATEST` and `schema_version.txt` go with the last v1.2
 * run. Undefined when there is nothing to move (another engine may just have moved it). Links are never followed.
 */
export function migrateLegacyRun(workDir: string, runId: string): LegacyRunMigration | undefined {
  if (!isLegacyRun(workDir, runId)) return undefined;
  const controlDir = join(workDir, '.delta');
  const runDir = join(controlDir, runId);
  try {
    try {
      renameSync(join(runsDirectory(workDir), runId), runDir);
    } catch (error) {
      // Moved already by an engine started at the same moment: this one finds it in its new place.
      if (['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw error;
    }
    const migration: LegacyRunMigration = { runId, moved: [], kept: [] };
    const execution = join(runDir, EXECUTION);
    for (const name of readdirSync(execution)) {
      if (existsSync(join(runDir, name))) {
        migration.kept.push(`${EXECUTION}/${name}`);
        continue;
      }
      renameSync(join(execution, name), join(runDir, name));
      migration.moved.push(name);
    }
    if (readdirSync(execution).length === 0) rmdirSync(execution);
    const metadata = join(runDir, 'metadata.json');
    if (existsSync(metadata)) writeMetadata(metadata, { ...readMetadata(metadata), schema_version: CONTROL_PLANE_VERSION });
    tidyControlPlane(workDir);
    return migration;
  } catch (error) {
    throw asDiskFault(error, runDir);
  }
}

/** LATEST and VERSION where v1.3 reads them; v1.2's own files removed once no v1.2 run is left. */
function tidyControlPlane(workDir: string): void {
  const controlDir = join(workDir, '.delta');
  const latest = readLegacyLatestRunId(workDir);
  const write = (file: string, text: string) => diskWrite(file, () => writeFileSync(file, text));
  if (latest !== undefined && !existsSync(join(controlDir, 'LATEST'))) write(join(controlDir, 'LATEST'), `${latest}\n`);
  if (!existsSync(join(controlDir, 'VERSION'))) write(join(controlDir, 'VERSION'), `${CONTROL_PLANE_VERSION}\n`);
  if (listLegacyRunIds(workDir).length > 0) return;
  rmSync(join(runsDirectory(workDir), 'LATEST'), { force: true });
  rmSync(join(controlDir, LEGACY_VERSION_FILE), { force: true });
  if (isRealDirectory(runsDirectory(workDir)) && readdirSync(runsDirectory(workDir)).length === 0) rmdirSync(runsDirectory(workDir));
}

/** The journal's words for a migration. */
export function describeLegacyRunMigration(migration: LegacyRunMigration): string {
  const kept =
    migration.kept.length === 0
      ? ''
      : `; left in .delta/${migration.runId}/ because a file of the same name is there: ${migration.kept.join(', ')}`;
  return (
    `Migrated this v1.2 run from .delta/${LEGACY_RUNS_DIRECTORY}/${migration.runId}/${EXECUTION}/ to .delta/${migration.runId}/ ` +
    `(spec v1.3 flattened the layout): ${migration.moved.join(', ') || 'nothing'} moved up${kept}. Every record is kept.`
  );
}
