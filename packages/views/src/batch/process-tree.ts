import { readdirSync } from 'node:fs';
import { readProcessStat } from '@delta/process-identity';

/** Linux's page size on the machines the engine runs on (x86-64 and arm64 Debian): RSS in /proc is in pages. */
const PAGE_BYTES = 4096;

export interface ProcessTreeUsage {
  /** This process and every process below it: run engines' tools, launchers, bubblewrap, MCP servers. */
  processes: number;
  /** Their resident memory, summed (shared pages count once per process, so this is an upper bound). */
  rssBytes: number;
}

/**
 * The processes a `delta batch` holds and their memory, from /proc: `root` and all its descendants.
 * Undefined where there is no /proc. Reads one small file per process of the machine: call it at most
 * about once a second.
 */
export function processTreeUsage(root: number = process.pid): ProcessTreeUsage | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcessStat(entry);
    if (stat === undefined) continue;
    const pid = Number(entry);
    rss.set(pid, stat.residentPages);
    children.set(stat.parentPid, [...(children.get(stat.parentPid) ?? []), pid]);
  }
  if (!rss.has(root)) return undefined;
  let processes = 0;
  let pages = 0;
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    processes += 1;
    pages += rss.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return { processes, rssBytes: pages * PAGE_BYTES };
}

/** `1.2 GB`, `340 MB`: resident memory for a person. */
export function formatBytes(bytes: number): string {
  const mb = bytes / 1e6;
  return mb >= 1000 ? `${(mb / 1000).toFixed(1)} GB` : `${Math.round(mb)} MB`;
}
