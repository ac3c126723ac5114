import { createHash } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { diskWrite, safeParseJson } from '@delta/errors';
import { controlDirectory, readRunRecord, SMALL_RECORD_MAX_BYTES } from '@delta/journal';
import { readUntrustedFile } from '@delta/untrusted-file';
import { DOTENV_MAX_BYTES } from './dotenv.js';

/**
 * `.delta/workspace-env.json`: the workspace `.env` as the engine last knew it, kept where no sandboxed tool
 * can write. `trusted_sha256` is the content the user gave (null: no file); `end_sha256` is what the file
 * held when that engine ended. A `.env` that changed while a run's tools ran is theirs, not the user's.
 */
const WorkspaceEnvRecord = z.looseObject({
  run_id: z.string(),
  trusted_sha256: z.string().nullable(),
  end_sha256: z.string().nullable().optional(),
});
type WorkspaceEnvRecord = z.infer<typeof WorkspaceEnvRecord>;

/** Whether the workspace `.env` may choose the model's endpoint and key, and the content the user gave. */
export interface WorkspaceEnvTrust {
  file: string;
  /** Why it is not obeyed (written by a run's tools); undefined when it is the user's. */
  distrusted: string | undefined;
  /** The content the user gave, kept across runs until the user changes the file. */
  trustedSha256: string | null;
}

function recordFile(workDir: string): string {
  return join(controlDirectory(workDir), 'workspace-env.json');
}

/** The digest of the workspace `.env`: null when there is none, `unreadable` when it is not a regular file. */
export function workspaceEnvDigest(workDir: string): string | null {
  const read = readUntrustedFile(join(workDir, '.env'), { allowedRoots: [workDir], maxBytes: DOTENV_MAX_BYTES });
  if (read.kind === 'missing') return null;
  if (read.kind === 'refused') return 'unreadable';
  return createHash('sha256').update(read.bytes).digest('hex');
}

function readRecord(workDir: string): WorkspaceEnvRecord | undefined {
  try {
    const bytes = readRunRecord(recordFile(workDir), SMALL_RECORD_MAX_BYTES);
    const parsed = bytes && safeParseJson(bytes.toString('utf8'), recordFile(workDir), { schema: WorkspaceEnvRecord });
    return parsed?.success ? parsed.data : undefined;
  } catch {
    // A damaged record gives no verdict: the file is judged as on a first run.
    return undefined;
  }
}

/**
 * Judges the workspace `.env` (pure apart from reading it and the record). Changed while no engine ran: the
 * user's. Changed between an engine's start and its end (or since a start whose engine never recorded its
 * end): its tools', so not obeyed for the model's endpoint and key until the user changes it again.
 */
export function judgeWorkspaceEnv(workDir: string): WorkspaceEnvTrust {
  const file = join(workDir, '.env');
  const current = workspaceEnvDigest(workDir);
  const record = readRecord(workDir);
  if (record === undefined || current === record.trusted_sha256) return { file, distrusted: undefined, trustedSha256: current };
  if (record.end_sha256 === undefined) {
    return {
      file,
      distrusted: `it changed after run ${record.run_id} started, and that engine did not record its end`,
      trustedSha256: record.trusted_sha256,
    };
  }
  if (current === record.end_sha256) {
    return { file, distrusted: `it changed while run ${record.run_id} ran (its tools can write it)`, trustedSha256: record.trusted_sha256 };
  }
  return { file, distrusted: undefined, trustedSha256: current };
}

function writeRecord(workDir: string, record: WorkspaceEnvRecord): void {
  const file = recordFile(workDir);
  const temporary = `${file}.${process.pid}.tmp`;
  diskWrite(file, () => {
    writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
    renameSync(temporary, file);
  });
}

/** Records, at an engine's start, the `.env` content the user gave. */
export function recordWorkspaceEnvStart(workDir: string, runId: string, trust: WorkspaceEnvTrust): void {
  writeRecord(workDir, { run_id: runId, trusted_sha256: trust.trustedSha256 });
}

/** Records, at an engine's end, what the `.env` holds now: a change since the start was made by the run's tools. */
export function recordWorkspaceEnvEnd(workDir: string, runId: string, trust: WorkspaceEnvTrust): void {
  writeRecord(workDir, { run_id: runId, trusted_sha256: trust.trustedSha256, end_sha256: workspaceEnvDigest(workDir) });
}
