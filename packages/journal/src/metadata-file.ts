import { readMetadata, writeMetadata, type RunMetadata } from './metadata.js';

/** How often `updateSoon` writes at the most: fast iterations do not rewrite the file every few ms. */
export const METADATA_REFRESH_MS = 500;

/**
 * metadata.json for the one engine process that holds the run's lock: read once, then every change is
 * written (atomically) from the copy in memory. `update` writes at once; `updateSoon`, for the running
 * totals of each iteration, writes at most every METADATA_REFRESH_MS (the journal, not this summary, is
 * what a resumed run is rebuilt from, and every status change is written at once).
 */
export class MetadataFile {
  private cached: RunMetadata | undefined;
  private lastWrite = 0;
  private pending = false;

  constructor(readonly file: string) {}

  get current(): RunMetadata {
    this.cached ??= readMetadata(this.file);
    return this.cached;
  }

  update(change: Partial<RunMetadata>): RunMetadata {
    const next = { ...this.current, ...change, updated_at: new Date().toISOString() };
    writeMetadata(this.file, next);
    this.cached = next;
    this.lastWrite = Date.now();
    this.pending = false;
    return next;
  }

  updateSoon(change: Partial<RunMetadata>): RunMetadata {
    if (Date.now() - this.lastWrite >= METADATA_REFRESH_MS) return this.update(change);
    this.cached = { ...this.current, ...change, updated_at: new Date().toISOString() };
    this.pending = true;
    return this.cached;
  }

  /** Writes a change `updateSoon` kept in memory, if any. */
  flush(): void {
    if (this.pending) this.update({});
  }
}
