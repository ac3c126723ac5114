import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { ConfigurationError } from '@delta/errors';

const created = new Set<string>();

/** Creates a fresh directory under os.tmpdir(), removed by cleanupTempDirs(). Returns its real path. */
export async function createTempDir(prefix = 'delta-test-'): Promise<string> {
  // realpath: on macOS tmpdir() is a symlink, and paths must compare equal to process.cwd() in tests.
  const directory = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  created.add(directory);
  return directory;
}

/** Removes every directory createTempDir (and so createTempAgent and createTempWorkspace) made. */
export async function cleanupTempDirs(): Promise<void> {
  const directories = [...created];
  created.clear();
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
}

/** A file's text, or its text and mode (e.g. 0o755 for a tool script). */
export type FileContent = string | { content: string; mode?: number };

/** Writes files given by relative path (parent directories are created); refuses paths that leave `root`. */
export async function writeFiles(root: string, files: Record<string, FileContent>): Promise<void> {
  for (const [relative, file] of Object.entries(files)) {
    if (isAbsolute(relative) || normalize(relative).split(sep)[0] === '..') {
      throw new ConfigurationError(`writeFiles: '${relative}' must be a relative path inside ${root}`, { code: 'INVALID_ARGUMENT' });
    }
    const target = join(root, relative);
    await mkdir(dirname(target), { recursive: true });
    const { content, mode } = typeof file === 'string' ? { content: file, mode: undefined } : file;
    await writeFile(target, content);
    if (mode !== undefined) await chmod(target, mode);
  }
}

/** A temp workspace directory with the given files. */
export async function createTempWorkspace(options: { files?: Record<string, FileContent>; prefix?: string } = {}): Promise<string> {
  const directory = await createTempDir(options.prefix ?? 'delta-workspace-');
  await writeFiles(directory, options.files ?? {});
  return directory;
}
