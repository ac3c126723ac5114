import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of a directory tree: `bytes`, the sum of file sizes (what `du -sb` says) and `allocated`, the blocks used (`du -s`). */
export function treeSize(directory) {
  let bytes = 0;
  let allocated = 0;
  let files = 0;
  const visit = (path) => {
    const stats = lstatSync(path);
    allocated += stats.blocks * 512;
    if (stats.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else {
      bytes += stats.size;
      files += 1;
    }
  };
  visit(directory);
  return { bytes, allocated, files };
}

/** Bytes by top-level part of a run directory: journal.jsonl, io/invocations, io/tool_executions, ... */
export function runBreakdown(runDir) {
  const parts = {};
  for (const entry of readdirSync(runDir)) {
    if (entry === 'io') {
      for (const inner of readdirSync(join(runDir, 'io'))) parts[`io/${inner}`] = treeSize(join(runDir, 'io', inner)).bytes;
    } else {
      parts[entry] = treeSize(join(runDir, entry)).bytes;
    }
  }
  return parts;
}
