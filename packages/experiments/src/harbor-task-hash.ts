import { createHash, type Hash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { harborTaskDirectories } from './harbor-tasks.js';

/** The files of a task that make it the task it is; environment/ is left out (its image is pinned by digest). */
const HASHED = ['instruction.md', 'task.toml', 'tests', 'solution'];

/** Adds `path` (relative to the task) to the hash: a file by its content, a link by its target (never followed), a directory by its entries, sorted. */
function hashEntry(hash: Hash, root: string, path: string): void {
  const full = join(root, path);
  const stats = lstatSync(full);
  if (stats.isDirectory()) {
    for (const name of readdirSync(full).sort()) hashEntry(hash, root, `${path}/${name}`);
    return;
  }
  const [kind, content] = stats.isFile()
    ? ['file', readFileSync(full)]
    : stats.isSymbolicLink()
      ? ['link', Buffer.from(readlinkSync(full))]
      : ['other', Buffer.alloc(0)];
  hash.update(`${kind}\0${path}\0${content.length}\0`).update(content);
}

/** A Harbor task's sha256: over its instruction.md, task.toml, tests/ and solution/ files, by path and content. */
export function harborTaskSha256(directory: string): string {
  const hash = createHash('sha256');
  for (const name of HASHED) if (existsSync(join(directory, name))) hashEntry(hash, directory, name);
  return hash.digest('hex');
}

/** Each task of a Harbor dataset directory with its sha256, by task id. */
export function harborTaskHashes(root: string): Record<string, string> {
  return Object.fromEntries(harborTaskDirectories(root).map((directory) => [basename(directory), harborTaskSha256(directory)]));
}

/** The sha256 of a whole dataset directory, over its tasks' hashes in the order of their ids. */
export function harborDatasetSha256(hashes: Readonly<Record<string, string>>): string {
  const lines = Object.keys(hashes)
    .sort()
    .map((id) => `${id} ${hashes[id]}\n`);
  return createHash('sha256').update(lines.join('')).digest('hex');
}
