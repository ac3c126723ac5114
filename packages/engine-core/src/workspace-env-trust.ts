import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readUntrustedFile } from '@delta/untrusted-file';
import { DOTENV_MAX_BYTES, parseDotenv } from './dotenv.js';
import {
  engineMayRun,
  engineOfRun,
  type OpenEngine,
  readWorkspaceEnvRecord,
  sameEngine,
  type WorkspaceEnvRecord,
  withWorkspaceEnvLock,
  writeWorkspaceEnvRecord,
} from './workspace-env-record.js';

/** Whether the workspace `.env` may choose the model's endpoint and key, and the content the user gave. */
export interface WorkspaceEnvTrust {
  file: string;
  /** Why it is not obeyed (written while a run's tools could write it); undefined when it is the user's. */
  distrusted: string | undefined;
  /** The content the user gave, kept across runs until the user changes the file. */
  trustedSha256: string | null;
  /** The file's values, parsed from the very bytes judged (so a swap after the judgement is never read); undefined when not read. */
  values?: Record<string, string>;
}

interface EnvFile {
  sha256: string | null;
  values?: Record<string, string>;
}

function readEnvFile(workDir: string): EnvFile {
  const read = readUntrustedFile(join(workDir, '.env'), { allowedRoots: [workDir], maxBytes: DOTENV_MAX_BYTES });
  if (read.kind === 'missing') return { sha256: null };
  if (read.kind === 'refused') return { sha256: 'unreadable' };
  return { sha256: createHash('sha256').update(read.bytes).digest('hex'), values: parseDotenv(read.bytes.toString('utf8')) };
}

/** The digest of the workspace `.env`: null when there is none, `unreadable` when it is not a regular file. */
export function workspaceEnvDigest(workDir: string): string | null {
  return readEnvFile(workDir).sha256;
}

function plural(runs: readonly string[]): string {
  return `${runs.length === 1 ? 'run' : 'runs'} ${runs.join(', ')}`;
}

function reason(changed: NonNullable<WorkspaceEnvRecord['changed_during']>): string {
  if (changed.unfinished.length > 0) {
    return `it changed after ${plural(changed.unfinished)} started, and ${changed.unfinished.length === 1 ? 'that engine' : 'those engines'} did not record ${changed.unfinished.length === 1 ? 'its' : 'their'} end`;
  }
  if (changed.runs.length === 0) return 'it changed while a run was going (its tools could write it)';
  return `it changed while ${plural(changed.runs)} ran (${changed.runs.length === 1 ? 'its' : 'their'} tools can write it)`;
}

/** One look at the file (at a start, an end, or a judgement): the verdict, and the record as it is after it. */
interface Observation {
  trust: Omit<WorkspaceEnvTrust, 'file' | 'values'>;
  next: WorkspaceEnvRecord;
}

/**
 * Judges `current` against the record (pure but for `mayRun`). Changed since the last start or end while no
 * engine was open: the user's. Changed while one was open (running, or gone without recording its end): its
 * tools', not obeyed until the user changes it again while no run goes on. Engines found gone are dropped.
 */
export function observeWorkspaceEnv(
  record: WorkspaceEnvRecord | undefined,
  current: string | null,
  mayRun: (engine: OpenEngine) => boolean,
): Observation {
  if (record === undefined) {
    return {
      trust: { distrusted: undefined, trustedSha256: current },
      next: { schema_version: 2, trusted_sha256: current, last_sha256: current, open: [] },
    };
  }
  const open = record.open;
  const changed = current !== record.last_sha256;
  const trusted = open.length === 0 && changed ? current : record.trusted_sha256;
  const running = open.filter(mayRun);
  let changedDuring = record.changed_during;
  if (current === trusted) changedDuring = undefined;
  else if (changed || changedDuring?.sha256 !== current) {
    const gone = open.filter((engine) => !running.includes(engine)).map((engine) => engine.run_id);
    changedDuring = { sha256: current, runs: [...new Set(open.map((engine) => engine.run_id))], unfinished: [...new Set(gone)] };
  }
  const next: WorkspaceEnvRecord = {
    schema_version: 2,
    trusted_sha256: trusted,
    last_sha256: current,
    open: running,
    ...(changedDuring === undefined ? {} : { changed_during: changedDuring }),
  };
  const distrusted = changedDuring === undefined ? undefined : reason(changedDuring);
  return { trust: { distrusted, trustedSha256: trusted }, next };
}

/**
 * Judges the workspace `.env` now (reads only): whether it is the user's, as the record of every run in the
 * workspace has it. The values returned are those of the bytes judged.
 */
export function judgeWorkspaceEnv(workDir: string): WorkspaceEnvTrust {
  const file = readEnvFile(workDir);
  const { trust } = observeWorkspaceEnv(readWorkspaceEnvRecord(workDir), file.sha256, (engine) => engineMayRun(workDir, engine));
  return { file: join(workDir, '.env'), ...trust, ...(file.values === undefined ? {} : { values: file.values }) };
}

/**
 * Records, at an engine's start (its run lock held), what the `.env` holds and that this engine is open:
 * until it records its end, a change to the file is taken as its tools' (or another open run's).
 */
export function recordWorkspaceEnvStart(workDir: string, runId: string): void {
  withWorkspaceEnvLock(workDir, () => {
    const { next } = observeWorkspaceEnv(readWorkspaceEnvRecord(workDir), workspaceEnvDigest(workDir), (engine) =>
      engineMayRun(workDir, engine),
    );
    const self = engineOfRun(workDir, runId);
    writeWorkspaceEnvRecord(workDir, { ...next, open: [...next.open.filter((engine) => !sameEngine(engine, self)), self] });
  });
}

/** Records, at an engine's end (its run lock still held), what the `.env` holds now, and that this engine is no longer open. */
export function recordWorkspaceEnvEnd(workDir: string, runId: string): void {
  withWorkspaceEnvLock(workDir, () => {
    const self = engineOfRun(workDir, runId);
    const { next } = observeWorkspaceEnv(readWorkspaceEnvRecord(workDir), workspaceEnvDigest(workDir), (engine) =>
      engineMayRun(workDir, engine),
    );
    writeWorkspaceEnvRecord(workDir, { ...next, open: next.open.filter((engine) => !sameEngine(engine, self)) });
  });
}
