import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { asDiskFault, DeltaError } from '@delta/errors';
import { metadataText, readMetadata, writeMetadata, type RunMetadata } from './metadata.js';

/** How often `updateSoon` writes at the most: fast iterations do not rewrite the file every few ms. */
export const METADATA_REFRESH_MS = 500;

/**
 * metadata.json for the one engine process that holds the run's lock: read once, then every change is
 * written from the copy in memory. `update` writes at once, atomically (a new file renamed over the old
 * one); `updateSoon`, for the running totals of each iteration, writes at most every
 * METADATA_REFRESH_MS, in place (the journal, not this summary, is what a resumed run is rebuilt from,
 * and every status change is written at once and atomically).
 *
 * Why in place: renaming over the file deletes the old one, and on ext4 without a journal every file
 * created in the next minute or more (a run creates several per iteration) first steps over each inode
 * deleted that recently. A reader that catches a rewrite in the middle reads again (readMetadata).
 * Kept on measured figures (docs/decisions/metadata-in-place.md); it is also the full-disk fallback.
 */
export class MetadataFile {
  private cached: RunMetadata | undefined;
  private lastWrite = 0;
  private pending = false;
  /** The file, open for the in-place writes; closed when `update` replaces it. */
  private descriptor: number | undefined;
  private fileBytes = 0;

  constructor(readonly file: string) {}

  get current(): RunMetadata {
    this.cached ??= readMetadata(this.file);
    return this.cached;
  }

  /**
   * On a full disk the new file a rename needs has no room: the text is then written over the old
   * file's own bytes instead (see writeInPlace), so that the run's last status still reaches the file.
   */
  update(change: Partial<RunMetadata>): RunMetadata {
    const next = { ...this.current, ...change, updated_at: new Date().toISOString() };
    this.closeFile();
    try {
      writeMetadata(this.file, next);
    } catch (error) {
      if (!(DeltaError.isInstance(error) && error.code === 'DISK_FULL')) throw error;
      this.cached = next;
      this.writeInPlace();
      this.closeFile();
    }
    this.cached = next;
    this.lastWrite = Date.now();
    this.pending = false;
    return next;
  }

  updateSoon(change: Partial<RunMetadata>): RunMetadata {
    this.cached = { ...this.current, ...change, updated_at: new Date().toISOString() };
    this.pending = true;
    if (Date.now() - this.lastWrite >= METADATA_REFRESH_MS) this.writeInPlace();
    return this.cached;
  }

  /** Writes a change `updateSoon` kept in memory, if any. */
  flush(): void {
    if (this.pending) this.writeInPlace();
  }

  /** Lets go of the file (the run's engine is done with it). */
  close(): void {
    this.flush();
    this.closeFile();
  }

  /**
   * The copy in memory over the file's bytes, in one write that never leaves the file shorter: a text
   * shorter than the file is padded with spaces before its last newline, so that a reader never finds
   * the end of an older, longer text after the new one (JSON may end with spaces).
   */
  private writeInPlace(): void {
    let text = Buffer.from(metadataText(this.current), 'utf8');
    try {
      if (this.descriptor === undefined) {
        this.descriptor = openSync(this.file, 'r+');
        this.fileBytes = fstatSync(this.descriptor).size;
      }
      if (text.length < this.fileBytes) {
        text = Buffer.concat([text.subarray(0, text.length - 1), Buffer.alloc(this.fileBytes - text.length, ' '), Buffer.from('\n')]);
      }
      if (text.length > this.fileBytes) {
        // What goes past the end first: only it may need new space, and if the disk has none the old text
        // is still whole (cut back to its length).
        try {
          writeAll(this.descriptor, text.subarray(this.fileBytes), this.fileBytes);
        } catch (error) {
          ftruncateSync(this.descriptor, this.fileBytes);
          throw error;
        }
      }
      writeAll(this.descriptor, text.subarray(0, Math.min(text.length, this.fileBytes)), 0);
    } catch (error) {
      throw asDiskFault(error, this.file);
    }
    this.fileBytes = text.length;
    this.lastWrite = Date.now();
    this.pending = false;
  }

  private closeFile(): void {
    if (this.descriptor === undefined) return;
    closeSync(this.descriptor);
    this.descriptor = undefined;
  }
}

/** Writes all of `bytes` at `position`; a disk that takes only part of them (a short write) throws on the rest. */
function writeAll(descriptor: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(descriptor, bytes, done, bytes.length - done, position + done);
}
