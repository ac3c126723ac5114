import { chmodSync, lstatSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** Every entry under `directory` (never through a link), depth first: `visit` gets its path and lstat. */
function walk(directory: string, visit: (path: string, stats: Stats) => void): void {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(directory, name);
    const stats = lstatSync(path);
    visit(path, stats);
    if (stats.isDirectory()) walk(path, visit);
  }
}

/** The bytes `directory` takes on disk (its blocks), each hard-linked file counted once. */
export function allocatedBytes(directory: string): number {
  const seen = new Set<string>();
  let total = 0;
  walk(directory, (_path, stats) => {
    const key = `${stats.dev}:${stats.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    total += Number(stats.blocks) * 512;
  });
  return total;
}

/** Removes `directory` whole: directories closed to their owner (mode 0, as an image may have them) are opened first. */
export function removeTree(directory: string): void {
  try {
    if (lstatSync(directory).isDirectory()) chmodSync(directory, 0o700);
  } catch {
    return;
  }
  walk(directory, (path, stats) => {
    if (stats.isDirectory() && (Number(stats.mode) & 0o700) !== 0o700) chmodSync(path, 0o700);
  });
  rmSync(directory, { recursive: true, force: true });
}
