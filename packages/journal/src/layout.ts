import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { asDiskFault, ConfigurationError, diskWrite, makeDirectory } from '@delta/errors';
import { isLegacyRun, legacyRunPaths, listLegacyRunIds, readLegacyLatestRunId } from './legacy-layout.js';
import { CONTROL_PLANE_VERSION } from './metadata.js';
import { isRunId } from './run-id.js';
import { readRunRecord, SMALL_RECORD_MAX_BYTES } from './read-record.js';

/** Where everything of one run lives: `<work_dir>/.delta/<run_id>/...` (spec 003). */
export interface RunPaths {
  workDir: string;
  controlDir: string;
  runId: string;
  runDir: string;
  journal: string;
  metadata: string;
  engineLog: string;
  ioDir: string;
  invocationsDir: string;
  toolExecutionsDir: string;
  hooksDir: string;
  interactionDir: string;
  lock: string;
}

export function controlDirectory(workDir: string): string {
  return join(workDir, '.delta');
}

export function runPaths(workDir: string, runId: string): RunPaths {
  const controlDir = controlDirectory(workDir);
  const runDir = join(controlDir, runId);
  const ioDir = join(runDir, 'io');
  return {
    workDir,
    controlDir,
    runId,
    runDir,
    journal: join(runDir, 'journal.jsonl'),
    metadata: join(runDir, 'metadata.json'),
    engineLog: join(runDir, 'engine.log'),
    ioDir,
    invocationsDir: join(ioDir, 'invocations'),
    toolExecutionsDir: join(ioDir, 'tool_executions'),
    hooksDir: join(ioDir, 'hooks'),
    interactionDir: join(runDir, 'interaction'),
    lock: join(runDir, 'engine.lock'),
  };
}

/** Writes a small file whole or not at all: runs starting at once in one workspace write the same files. */
function writeFileWhole(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  diskWrite(file, () => {
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  });
}

/**
 * Creates `.delta/`, `VERSION` and the run's directories. The run's own directory is created exclusively,
 * which claims its id: a second run with the same id in the workspace is refused (`RUN_ID_TAKEN`).
 */
export function createRunDirectories(paths: RunPaths): void {
  makeDirectory(paths.controlDir);
  try {
    mkdirSync(paths.runDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asDiskFault(error, paths.runDir);
    throw new ConfigurationError(`The run id "${paths.runId}" is already used in ${paths.workDir} (${paths.runDir} exists).`, {
      code: 'RUN_ID_TAKEN',
      file: paths.runDir,
      hint: `Choose another run id, or continue that run: delta continue -w ${paths.workDir} --run-id ${paths.runId}`,
    });
  }
  for (const dir of [paths.invocationsDir, paths.toolExecutionsDir, paths.hooksDir]) makeDirectory(dir);
  const version = join(paths.controlDir, 'VERSION');
  if (!existsSync(version)) writeFileWhole(version, `${CONTROL_PLANE_VERSION}\n`);
}

function readLine(file: string): string | undefined {
  const value = readRunRecord(file, SMALL_RECORD_MAX_BYTES)?.toString('utf8').trim();
  if (value === undefined) return undefined;
  return value === '' ? undefined : value;
}

/** The run id in `.delta/LATEST`, or in a v1.2 workspace `.delta/runs/LATEST`, if any. */
export function readLatestRunId(workDir: string): string | undefined {
  return readLine(join(controlDirectory(workDir), 'LATEST')) ?? readLegacyLatestRunId(workDir);
}

/** Where a run of the workspace is: `runPaths`, or a v1.2 run's place until it is migrated (legacy-layout.ts). */
export function findRunPaths(workDir: string, runId: string): RunPaths {
  return isLegacyRun(workDir, runId) ? legacyRunPaths(workDir, runId) : runPaths(workDir, runId);
}

export function writeLatestRunId(workDir: string, runId: string): void {
  makeDirectory(controlDirectory(workDir));
  writeFileWhole(join(controlDirectory(workDir), 'LATEST'), `${runId}\n`);
}

/**
 * The runs in a workspace, by name: generated ids sort by time, chosen ids (`--run-id`) do not. A run is a
 * directory under `.delta/` with a run id for its name and its `io/` (created first) or `metadata.json`, or
 * a v1.2 run under `.delta/runs/` not yet migrated (find its files with findRunPaths).
 */
export function listRunIds(workDir: string): string[] {
  const dir = controlDirectory(workDir);
  if (!existsSync(dir)) return [];
  const current = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isRunId(entry.name))
    .map((entry) => entry.name)
    .filter((name) => existsSync(join(dir, name, 'io')) || existsSync(join(dir, name, 'metadata.json')));
  return [...new Set([...current, ...listLegacyRunIds(workDir)])].sort();
}

const WORKSPACE = /^W(\d{3,})$/;

export function workspacesDirectory(agentHome: string): string {
  return join(agentHome, 'workspaces');
}

/** Workspace names (`W001`, `W002`, ...) under `<agent>/workspaces`, in order. */
export function listWorkspaces(agentHome: string): string[] {
  const dir = workspacesDirectory(agentHome);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && WORKSPACE.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

/** Creates the next sequential workspace and records it in `LAST_USED`. */
export function createNextWorkspace(agentHome: string): { id: string; path: string } {
  const existing = listWorkspaces(agentHome);
  const next = existing.length === 0 ? 1 : Number(existing.at(-1)!.slice(1)) + 1;
  const id = `W${String(next).padStart(3, '0')}`;
  const path = join(workspacesDirectory(agentHome), id);
  makeDirectory(path);
  writeLastUsedWorkspace(agentHome, id);
  return { id, path };
}

/** What a run was made for: an ordinary run, a replay of another run, or a fork of one. */
export type RunKind = 'run' | 'replay' | 'fork';

/** A run's kind, from its metadata.json: a replay or a fork says where it comes from. */
export function runKind(metadata: { replay_of?: unknown; forked_from?: unknown }): RunKind {
  if (metadata.forked_from !== undefined) return 'fork';
  return metadata.replay_of !== undefined ? 'replay' : 'run';
}

const ORIGIN_PLACES = { replay: { directory: 'replays', prefix: 'R' }, fork: { directory: 'forks', prefix: 'F' } } as const;

/**
 * Where an agent's replays (`<agent>/replays/R001`) or forks (`<agent>/forks/F001`) are made by default:
 * beside its workspaces, never among them, so that they are not taken for its ordinary runs.
 */
export function originDirectory(agentHome: string, kind: 'replay' | 'fork'): string {
  return join(agentHome, ORIGIN_PLACES[kind].directory);
}

/** The workspace names under `originDirectory(agentHome, kind)` (`R001`, `R002`...), in order. */
export function listOriginWorkspaces(agentHome: string, kind: 'replay' | 'fork'): string[] {
  const dir = originDirectory(agentHome, kind);
  if (!existsSync(dir)) return [];
  const pattern = new RegExp(`^${ORIGIN_PLACES[kind].prefix}(\\d{3,})$`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && pattern.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

/** Creates the next workspace for a replay or a fork of one of the agent's runs (`<agent>/replays/R00N`). */
export function createOriginWorkspace(agentHome: string, kind: 'replay' | 'fork'): { id: string; path: string } {
  const { prefix } = ORIGIN_PLACES[kind];
  const existing = listOriginWorkspaces(agentHome, kind);
  let next = existing.length === 0 ? 1 : Number(existing.at(-1)!.slice(1)) + 1;
  for (;;) {
    const id = `${prefix}${String(next).padStart(3, '0')}`;
    const path = join(originDirectory(agentHome, kind), id);
    makeDirectory(originDirectory(agentHome, kind));
    try {
      // Created here and nowhere else: two replays started at once never share a workspace.
      mkdirSync(path);
      return { id, path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asDiskFault(error, path);
      next += 1;
    }
  }
}

export function readLastUsedWorkspace(agentHome: string): string | undefined {
  return readLine(join(workspacesDirectory(agentHome), 'LAST_USED'));
}

export function writeLastUsedWorkspace(agentHome: string, id: string): void {
  makeDirectory(workspacesDirectory(agentHome));
  const file = join(workspacesDirectory(agentHome), 'LAST_USED');
  diskWrite(file, () => writeFileSync(file, `${id}\n`));
}

/** Where the workspaces an agent ran in outside `<agent>/workspaces` (`delta run -w DIR`) are listed, one path a line. */
export function otherWorkspacesFile(agentHome: string): string {
  return join(workspacesDirectory(agentHome), 'OTHER_WORKSPACES');
}

/**
 * Adds `workDir` to the agent's OTHER_WORKSPACES unless it is one of `<agent>/workspaces/` or listed
 * already, so that `delta list --agent` finds its runs. `workDir` is absolute.
 */
export function recordOtherWorkspace(agentHome: string, workDir: string): void {
  const inside = relative(workspacesDirectory(agentHome), workDir);
  if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) return;
  if (readOtherWorkspaces(agentHome).includes(workDir)) return;
  makeDirectory(workspacesDirectory(agentHome));
  const file = otherWorkspacesFile(agentHome);
  diskWrite(file, () => appendFileSync(file, `${workDir}\n`));
}

/** The paths in the agent's OTHER_WORKSPACES, in the order they were first used (some may be gone since). */
export function readOtherWorkspaces(agentHome: string): string[] {
  const file = otherWorkspacesFile(agentHome);
  if (!existsSync(file)) return [];
  return [
    ...new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    ),
  ];
}
