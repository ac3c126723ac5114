import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigurationError, diskWrite, safeParseJson } from '@delta/errors';
import {
  acquireRunLock,
  controlDirectory,
  holderIsAlive,
  isRunId,
  readRunRecord,
  type RunLockHolder,
  runPaths,
  SMALL_RECORD_MAX_BYTES,
  safeParseRunLockHolder,
} from '@delta/journal';

/** An engine that recorded its start in the workspace and not yet its end: the run, and the process (its run lock's holder). */
const OpenEngine = z.looseObject({
  run_id: z.string(),
  pid: z.number().int().optional(),
  host: z.string().optional(),
  start_ticks: z.string().optional(),
});
export type OpenEngine = z.infer<typeof OpenEngine>;

/**
 * `.delta/workspace-env.json`, version 2: the workspace `.env` as the engines of every run in the workspace
 * saw it, updated under `.delta/workspace-env.lock` at each engine's start and end, so that no two runs
 * overwrite each other's view. `trusted_sha256`: the content the user gave (null: no file); `last_sha256`:
 * what the file held at the last start or end; `open`: the engines between their start and their end;
 * `changed_during`: the runs that were going when the file last changed to content that is not the user's.
 */
export const WorkspaceEnvRecord = z.looseObject({
  schema_version: z.literal(2),
  trusted_sha256: z.string().nullable(),
  last_sha256: z.string().nullable(),
  open: z.array(OpenEngine),
  changed_during: z.object({ sha256: z.string().nullable(), runs: z.array(z.string()), unfinished: z.array(z.string()) }).optional(),
});
export type WorkspaceEnvRecord = z.infer<typeof WorkspaceEnvRecord>;

/** Version 1 (one record per workspace, overwritten by each engine): read, and migrated, as one open engine or none. */
const LegacyRecord = z.looseObject({
  run_id: z.string(),
  trusted_sha256: z.string().nullable(),
  end_sha256: z.string().nullable().optional(),
});

export const SUPPORTED_WORKSPACE_ENV_VERSIONS = [1, 2] as const;

export function workspaceEnvRecordFile(workDir: string): string {
  return join(controlDirectory(workDir), 'workspace-env.json');
}

function migrate(legacy: z.infer<typeof LegacyRecord>): WorkspaceEnvRecord {
  const ended = legacy.end_sha256 !== undefined;
  const last = ended ? legacy.end_sha256! : legacy.trusted_sha256;
  return {
    schema_version: 2,
    trusted_sha256: legacy.trusted_sha256,
    last_sha256: last,
    // Its engine's identity was not kept: it is open while the run's lock has a live holder.
    open: ended ? [] : [{ run_id: legacy.run_id }],
    ...(ended && last !== legacy.trusted_sha256 ? { changed_during: { sha256: last, runs: [legacy.run_id], unfinished: [] } } : {}),
  };
}

/** The record, version 1 migrated; undefined when there is none or it cannot be read (then judged as on a first run). */
export function readWorkspaceEnvRecord(workDir: string): WorkspaceEnvRecord | undefined {
  const file = workspaceEnvRecordFile(workDir);
  try {
    const bytes = readRunRecord(file, SMALL_RECORD_MAX_BYTES);
    if (bytes === undefined) return undefined;
    const text = bytes.toString('utf8');
    const current = safeParseJson(text, file, { schema: WorkspaceEnvRecord });
    if (current.success) return current.data;
    const legacy = safeParseJson(text, file, { schema: LegacyRecord });
    return legacy.success ? migrate(legacy.data) : undefined;
  } catch {
    return undefined;
  }
}

export function writeWorkspaceEnvRecord(workDir: string, record: WorkspaceEnvRecord): void {
  const file = workspaceEnvRecordFile(workDir);
  const temporary = `${file}.${process.pid}.tmp`;
  diskWrite(file, () => {
    writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
    renameSync(temporary, file);
  });
}

function lockHolder(workDir: string, runId: string): RunLockHolder | undefined {
  if (!isRunId(runId)) return undefined;
  const text = readRunRecord(runPaths(workDir, runId).lock, SMALL_RECORD_MAX_BYTES)?.toString('utf8');
  if (text === undefined) return undefined;
  const parsed = safeParseRunLockHolder(text);
  return parsed.success ? parsed.data : undefined;
}

/** The engine that holds the run's lock now (this one, at its start and end): pid, host and start time, as the lock names them. */
export function engineOfRun(workDir: string, runId: string): OpenEngine {
  const holder = lockHolder(workDir, runId);
  if (holder === undefined) return { run_id: runId };
  return {
    run_id: runId,
    pid: holder.pid,
    host: holder.host,
    ...(holder.start_ticks === undefined ? {} : { start_ticks: holder.start_ticks }),
  };
}

export function sameEngine(a: OpenEngine, b: OpenEngine): boolean {
  return a.run_id === b.run_id && a.pid === b.pid && a.host === b.host && a.start_ticks === b.start_ticks;
}

/**
 * Whether an engine that recorded its start may still be running: its run's lock names it and that holder
 * lives (on another host: its lease holds). A lock released, taken over (a `delta continue` after a crash)
 * or held by a dead process means the engine ended without recording its end.
 */
export function engineMayRun(workDir: string, engine: OpenEngine): boolean {
  try {
    const holder = lockHolder(workDir, engine.run_id);
    if (holder === undefined) return false;
    const named =
      engine.pid === undefined || (holder.pid === engine.pid && holder.host === engine.host && holder.start_ticks === engine.start_ticks);
    return named && holderIsAlive(holder);
  } catch {
    // A lock that cannot be read: counted as running, which only ever distrusts more.
    return true;
  }
}

/** How long an engine waits for another to finish its few-millisecond update of the record. */
const RECORD_LOCK_WAIT_MS = 10_000;

function pause(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/** Runs `update` with `.delta/workspace-env.lock` held, so that engines of the workspace's runs update the record one at a time. */
export function withWorkspaceEnvLock<T>(workDir: string, update: () => T): T {
  const file = join(controlDirectory(workDir), 'workspace-env.lock');
  const deadline = Date.now() + RECORD_LOCK_WAIT_MS;
  let holder: RunLockHolder | undefined;
  // Made only when another engine holds the lock: an error (and its stack) per update cost more than the update.
  let busy: ConfigurationError | undefined;
  for (;;) {
    try {
      const lock = acquireRunLock(file, 'workspace-env', {
        refuse: (found) => {
          holder = found;
          busy ??= new ConfigurationError(`${file} is held`, { code: 'RUN_LOCKED', file });
          return busy;
        },
      });
      try {
        return update();
      } finally {
        lock.release();
      }
    } catch (error) {
      if (error !== busy) throw error;
      if (Date.now() > deadline) {
        throw new ConfigurationError(
          `Could not update ${workspaceEnvRecordFile(workDir)}: ${file} has been held by pid ${holder?.pid} on ${holder?.host} (since ${holder?.since}) for ${RECORD_LOCK_WAIT_MS / 1000} s.`,
          {
            code: 'RUN_LOCKED',
            file,
            hint: `An engine of another run in this workspace holds it for a few milliseconds only: if pid ${holder?.pid} is not a delta process, delete ${file} and try again.`,
          },
        );
      }
      pause(5);
    }
  }
}
