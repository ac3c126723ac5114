import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
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

/**
 * The paths of a session whose directory may be acted on: the sessions directory and the session's own
 * directory are real directories, not symbolic links (a tool may have planted one to send `end` or
 * `cleanup` outside). Their files are then removed with rm, which never follows a link, so nothing
 * outside `<sessions dir>/<id>/` is ever deleted. A missing directory is left to readMetadata to report.
 */
export async function checkedSessionPaths(sessionsDir: string, sessionId: string): Promise<SessionPaths> {
  const paths = sessionPaths(sessionsDir, sessionId);
  await checkNotALink(sessionsDir, 'The sessions directory');
  await checkNotALink(paths.directory, `Session ${sessionId}'s directory`);
  return paths;
}

export async function checkNotALink(path: string, what: string): Promise<void> {
  const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (stats === undefined || (stats.isDirectory() && !stats.isSymbolicLink())) return;
  const found = stats.isSymbolicLink() ? 'a symbolic link' : 'not a directory';
  throw new SessionError(
    `${what} ${path} is ${found}; delta-sessions never follows one, since whatever runs in the workspace can plant it to point elsewhere. Remove it.`,
    { code: 'SESSION_UNTRUSTED' },
  );
}

/** metadata.json is small; a bigger one is not ours. */
const maxMetadataBytes = 1024 * 1024;

/**
 * Reads a file of a session directory (tool-writable) as a regular file only: never through a link, never
 * a FIFO or a device (opened without blocking, refused by type), never more than `maxBytes`. Anything else
 * is a SessionError `SESSION_UNTRUSTED` that says the file is not `what`; a missing file is ENOENT.
 */
export async function readRegularFile(path: string, maxBytes: number, what: string): Promise<string> {
  const untrusted = (found: string) =>
    new SessionError(`${path} is ${found}: not ${what}. Remove the session's directory.`, { code: 'SESSION_UNTRUSTED' });
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw untrusted('a symbolic link');
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw untrusted('not a regular file');
    // Read one byte more than allowed, so a file that grows after the stat is still caught.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw untrusted(`larger than ${maxBytes} bytes`);
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
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
    text = await readRegularFile(paths.metadata, maxMetadataBytes, "a session's metadata.json");
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

/** The ids of every session directory, oldest name first; links named like one are listed too, to be refused by name. */
export async function listSessionIds(sessionsDir: string): Promise<string[]> {
  try {
    const entries = await readdir(sessionsDir, { withFileTypes: true });
    return entries
      .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && entry.name.startsWith('sess_'))
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
