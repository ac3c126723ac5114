import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endSession, listSessions } from '../src/index.js';

/** A real temporary directory to run sessions in; `dispose` ends every session left and removes it. */
export async function temporaryWorkspace(): Promise<{ cwd: string; dispose: () => Promise<void> }> {
  const cwd = await mkdtemp(join(tmpdir(), 'delta-sessions-test-'));
  return {
    cwd,
    dispose: async () => {
      for (const session of await listSessions({ cwd })) {
        if (session.status !== 'terminated') await endSession(session.session_id, { cwd }).catch(() => undefined);
      }
      await rm(cwd, { recursive: true, force: true });
    },
  };
}

/** Every file under `directory`, with its contents. */
export async function readTree(directory: string): Promise<Array<{ path: string; content: string }>> {
  const files: Array<{ path: string; content: string }> = [];
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.push({ path, content: await readFile(path, 'utf8') });
  }
  return files;
}

export function sessionMetadataPath(cwd: string, sessionId: string): string {
  return join(cwd, '.sessions', sessionId, 'metadata.json');
}
