import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** How often a run's layer is measured while its sandbox runs. */
export const LAYER_WATCH_INTERVAL_MS = 500;

/**
 * The bytes a directory tree takes on disk (allocated blocks, so a sparse file counts what it holds; a file
 * linked twice, once), walked without following a link. Everything there was written by the run's tools.
 */
export function allocatedBytes(directory: string): number {
  const seen = new Set<string>();
  let total = 0;
  const walk = (path: string): void => {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch {
      return;
    }
    const id = `${stats.dev}:${stats.ino}`;
    if (seen.has(id)) return;
    seen.add(id);
    total += stats.blocks * 512;
    if (!stats.isDirectory()) return;
    let names: string[] = [];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names) walk(join(path, name));
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
    const bytes = allocatedBytes(this.upper);
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
