import { lstatSync, opendirSync } from 'node:fs';
import { join } from 'node:path';

/** How often a run's layer is measured while its sandbox runs. */
export const LAYER_WATCH_INTERVAL_MS = 500;

/** What each entry of a layer counts at least: its inode, so that empty files cannot be made without bound. */
export const LAYER_ENTRY_BYTES = 512;

/**
 * The bytes a directory tree takes on disk (allocated blocks, so a sparse file counts what it holds; a file
 * linked twice, once; each entry at least LAYER_ENTRY_BYTES), walked without following a link. Everything
 * there was written by the run's tools, so the walk stops as soon as the total is past `stopAbove`: a run
 * that made millions of entries costs the engine one bounded walk, not a stalled event loop every interval.
 */
export function allocatedBytes(directory: string, stopAbove = Number.POSITIVE_INFINITY): number {
  const seen = new Set<string>();
  let total = 0;
  const walk = (path: string): void => {
    if (total > stopAbove) return;
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch {
      return;
    }
    const id = `${stats.dev}:${stats.ino}`;
    if (seen.has(id)) return;
    seen.add(id);
    total += Math.max(Number(stats.blocks) * 512, LAYER_ENTRY_BYTES);
    if (!stats.isDirectory()) return;
    let dir: ReturnType<typeof opendirSync>;
    try {
      dir = opendirSync(path);
    } catch {
      return;
    }
    // Read an entry at a time, so that a directory of millions is never listed whole past the bound.
    try {
      for (let entry = dir.readSync(); entry !== null && total <= stopAbove; entry = dir.readSync()) walk(join(path, entry.name));
    } catch {
      // A directory that changed or vanished while it was read: what was counted stands.
    } finally {
      dir.closeSync();
    }
  };
  walk(directory);
  return total;
}

/**
 * Holds a run's own layer (its overlay's `upper/`) to `bound` bytes without any privilege: it is measured
 * every LAYER_WATCH_INTERVAL_MS while the sandbox runs and after each tool call, and once it is past the
 * bound `onPassed` is called (once), which ends the sandbox. So a run may pass the bound by what it writes
 * in one interval before it is stopped; what it wrote stays in its layer.
 */
export class LayerWatch {
  private timer: NodeJS.Timeout | undefined;
  /** The layer's size when it was found past the bound. */
  passedAt: number | undefined;

  constructor(
    private readonly upper: string,
    readonly bound: number,
    private readonly onPassed: (bytes: number) => void,
  ) {}

  start(): void {
    if (this.timer !== undefined || this.passedAt !== undefined) return;
    this.timer = setInterval(() => this.check(), LAYER_WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Measures the layer now; true when it is past the bound (now or before). */
  check(): boolean {
    if (this.passedAt !== undefined) return true;
    const bytes = allocatedBytes(this.upper, this.bound);
    if (bytes <= this.bound) return false;
    this.passedAt = bytes;
    this.stop();
    this.onPassed(bytes);
    return true;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
