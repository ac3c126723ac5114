import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_PLANE_VERSION } from './metadata.js';

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

const RUN_ID = /^\d{8}_\d{6}_[a-z0-9]{6}$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A run id `YYYYMMDD_HHmmss_xxxxxx` (UTC time, six lowercase letters or digits). */
export function createRunId(now: Date = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const stamp =
    `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}_` +
    `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const bytes = randomBytes(6);
  let suffix = '';
  for (const byte of bytes) suffix += ALPHABET[byte % ALPHABET.length];
  return `${stamp}_${suffix}`;
}

export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
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

/** Creates `.delta/`, `VERSION` and the run's directories. */
export function createRunDirectories(paths: RunPaths): void {
  mkdirSync(paths.invocationsDir, { recursive: true });
  mkdirSync(paths.toolExecutionsDir, { recursive: true });
  mkdirSync(paths.hooksDir, { recursive: true });
  const version = join(paths.controlDir, 'VERSION');
  if (!existsSync(version)) writeFileSync(version, `${CONTROL_PLANE_VERSION}\n`);
}

function readLine(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const value = readFileSync(file, 'utf8').trim();
  return value === '' ? undefined : value;
}

/** The run id in `.delta/LATEST`, if any. */
export function readLatestRunId(workDir: string): string | undefined {
  return readLine(join(controlDirectory(workDir), 'LATEST'));
}

export function writeLatestRunId(workDir: string, runId: string): void {
  mkdirSync(controlDirectory(workDir), { recursive: true });
  writeFileSync(join(controlDirectory(workDir), 'LATEST'), `${runId}\n`);
}

/** Run ids in a workspace, oldest first (run ids sort by time). */
export function listRunIds(workDir: string): string[] {
  const dir = controlDirectory(workDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter(isRunId).sort();
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
  mkdirSync(path, { recursive: true });
  writeLastUsedWorkspace(agentHome, id);
  return { id, path };
}

export function readLastUsedWorkspace(agentHome: string): string | undefined {
  return readLine(join(workspacesDirectory(agentHome), 'LAST_USED'));
}

export function writeLastUsedWorkspace(agentHome: string, id: string): void {
  mkdirSync(workspacesDirectory(agentHome), { recursive: true });
  writeFileSync(join(workspacesDirectory(agentHome), 'LAST_USED'), `${id}\n`);
}
