import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseSessionJson, SessionMetadataShape, VersionedShape } from './json-shapes.js';
import { SessionError } from './session-error.js';
import { checkSessionId } from './session-id.js';
import type { SessionMetadata } from './types.js';

const supportedSchemaVersions = [1];

/** The files of one session directory (spec 2.3.3). */
export interface SessionPaths {
  directory: string;
  metadata: string;
  environment: string;
  functions: string;
  workDir: string;
  lock: string;
}

export function sessionPaths(sessionsDir: string, sessionId: string): SessionPaths {
  const directory = join(sessionsDir, checkSessionId(sessionId));
  return {
    directory,
    metadata: join(directory, 'metadata.json'),
    environment: join(directory, 'env.sh'),
    functions: join(directory, 'functions.sh'),
    workDir: join(directory, 'work_dir.txt'),
    lock: join(directory, 'exec.lock'),
  };
}

export async function createSessionsDir(sessionsDir: string): Promise<void> {
  await mkdir(sessionsDir, { recursive: true, mode: 0o700 });
  // Keeps session state out of the user's commits when the workspace is a git repository.
  await writeFile(join(sessionsDir, '.gitignore'), '*\n', { flag: 'wx' }).catch(() => undefined);
}

/** Writes through a temporary file and a rename, so a reader never sees half a file. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, content, { mode: 0o600 });
  await rename(temporary, path);
}

export async function writeMetadata(paths: SessionPaths, metadata: SessionMetadata): Promise<void> {
  await writeFileAtomic(paths.metadata, `${JSON.stringify(metadata, null, 2)}\n`);
}

export async function readMetadata(paths: SessionPaths, sessionId: string): Promise<SessionMetadata> {
  let text: string;
  try {
    text = await readFile(paths.metadata, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SessionError(
        `No session ${sessionId} in ${dirname(paths.directory)}; start one with \`delta-sessions start\` or check the id with \`delta-sessions list\`.`,
        {
          code: 'SESSION_NOT_FOUND',
        },
      );
    }
    throw error;
  }
  const { schema_version: version } = parseSessionJson(text, paths.metadata, VersionedShape);
  if (!supportedSchemaVersions.includes(version)) {
    throw new SessionError(
      `${paths.metadata} has schema_version ${version}; this version of @delta/sessions reads ${supportedSchemaVersions.join(', ')}.`,
      { code: 'UNSUPPORTED_STATE_VERSION' },
    );
  }
  const metadata = parseSessionJson(text, paths.metadata, SessionMetadataShape) as SessionMetadata | StoredBeforeOneWord;
  if (metadata.status !== 'ended') return metadata as SessionMetadata;
  // An older version wrote `ended`/`ended_at`; one word, `terminated`, is used everywhere now.
  const { ended_at: endedAt, ...rest } = metadata as StoredBeforeOneWord;
  return { ...rest, status: 'terminated', ...(endedAt === undefined ? {} : { terminated_at: endedAt }) };
}

/** metadata.json as versions before the one-word rule wrote it. */
type StoredBeforeOneWord = Omit<SessionMetadata, 'status'> & { status: 'ended'; ended_at?: string };

/** The ids of every session directory, oldest name first. */
export async function listSessionIds(sessionsDir: string): Promise<string[]> {
  try {
    const entries = await readdir(sessionsDir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && entry.name.startsWith('sess_'))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function removeFiles(...paths: string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { force: true })));
}
