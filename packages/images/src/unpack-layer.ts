import { closeSync, constants, linkSync, lstatSync, mkdirSync, openSync, readdirSync, chmodSync, symlinkSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { imageError } from './image-error.js';
import { entryParts, kindAt, parentsOf, removeAt } from './safe-path.js';
import type { TarEntry } from './tar-reader.js';

/** How much one image may hold once unpacked (every layer together), and one layer decompressed. */
export interface UnpackLimits {
  /** Bytes of file content, all layers together (default 64 GiB). */
  maxBytes: number;
  /** Entries, all layers together (default 2,000,000). */
  maxEntries: number;
}

export const DEFAULT_UNPACK_LIMITS: UnpackLimits = { maxBytes: 64 * 1024 ** 3, maxEntries: 2_000_000 };

/** What unpacking has used so far, and what it left out (device nodes, FIFOs: a layer's, never made here). */
export interface UnpackTally {
  bytes: number;
  entries: number;
  skipped: string[];
}

const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';
/** Set-user-ID, set-group-ID and sticky bits: never kept on what is unpacked. */
const SPECIAL_BITS = 0o7000;

/**
 * Applies one layer's entries to `root`, as the OCI image spec's layer section says: each entry written
 * (a file's content, a directory, a symbolic link, a hard link to a file unpacked before), a `.wh.NAME`
 * removing NAME of the layers below, a `.wh..wh..opq` emptying its directory of what the layers below put
 * there. What is written by this layer itself is never removed by its own whiteouts (`written`). Nothing is
 * ever written through a link or outside `root` (see safe-path.ts); no device node, FIFO or set-ID bit is
 * made. `where(entry)` names the layer and the entry for an error.
 */
export class LayerWriter {
  private readonly written = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly limits: UnpackLimits,
    private readonly tally: UnpackTally,
    private readonly describe: (path: string) => string,
  ) {}

  async apply(entry: TarEntry, body: () => AsyncGenerator<Buffer>): Promise<void> {
    const where = () => this.describe(entry.path);
    this.tally.entries += 1;
    if (this.tally.entries > this.limits.maxEntries) {
      throw imageError('IMAGE_INVALID', `${where()}: the image has more than ${this.limits.maxEntries} entries, the bound`);
    }
    const parts = entryParts(entry.path, where);
    if (parts.length === 0) return;
    const name = parts.at(-1)!;
    if (name === OPAQUE) return this.opaque(parts.slice(0, -1), where);
    if (name.startsWith(WHITEOUT)) return this.whiteout([...parts.slice(0, -1), name.slice(WHITEOUT.length)], where);
    const key = parts.join('/');
    const directory = parentsOf(this.root, parts, where);
    const path = join(directory, name);
    const mode = entry.mode & ~SPECIAL_BITS & 0o777;
    if (entry.type === 'directory') {
      if (kindAt(path) !== 'directory') {
        removeAt(path);
        mkdirSync(path);
      }
      // The owner keeps the right to enter and change it: the cache must stay removable.
      chmodSync(path, mode | 0o700);
    } else if (entry.type === 'file') {
      removeAt(path);
      await this.writeFile(path, mode, entry.size, body, where);
    } else if (entry.type === 'symlink') {
      removeAt(path);
      if (entry.linkpath.includes('\0') || entry.linkpath.length > 4096)
        throw imageError('IMAGE_INVALID', `${where()}: its link target is no path`);
      symlinkSync(entry.linkpath, path);
    } else if (entry.type === 'hardlink') {
      const targetParts = entryParts(entry.linkpath, where);
      const above = targetParts.length > 0 ? this.existingDirectory(targetParts.slice(0, -1), where, true) : undefined;
      const target = above === undefined ? undefined : join(above, targetParts.at(-1)!);
      const stats = target !== undefined && kindAt(target) === 'other' ? lstatSync(target) : undefined;
      if (target === undefined || !stats?.isFile()) {
        throw imageError(
          'IMAGE_INVALID',
          `${where()}: a hard link to ${JSON.stringify(entry.linkpath)}, which is no file unpacked before it`,
        );
      }
      removeAt(path);
      linkSync(target, path);
    } else {
      // A device node, a FIFO: not made (a tool has /dev of its own); said in the cache's record.
      this.tally.skipped.push(`${entry.type} ${key}`);
      return;
    }
    // The entry and the directories above it are this layer's: its own whiteouts leave them be.
    for (let index = 1; index <= parts.length; index += 1) this.written.add(parts.slice(0, index).join('/'));
  }

  private async writeFile(
    path: string,
    mode: number,
    size: number,
    body: () => AsyncGenerator<Buffer>,
    where: () => string,
  ): Promise<void> {
    if (this.tally.bytes + size > this.limits.maxBytes) {
      throw imageError('IMAGE_INVALID', `${where()}: the image holds more than ${this.limits.maxBytes} bytes, the bound`);
    }
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode | 0o200);
    try {
      for await (const chunk of body()) {
        this.tally.bytes += chunk.length;
        let at = 0;
        while (at < chunk.length) at += writeSync(fd, chunk, at, chunk.length - at);
      }
    } finally {
      closeSync(fd);
    }
    if ((mode & 0o200) === 0) chmodSync(path, mode);
  }

  /** `.wh.NAME`: NAME of the layers below goes. */
  private whiteout(parts: string[], where: () => string): void {
    const key = parts.join('/');
    if (parts.at(-1)!.startsWith(WHITEOUT) || this.written.has(key)) return;
    const directory = this.existingDirectory(parts.slice(0, -1), where);
    if (directory !== undefined) removeAt(join(directory, basename(key)));
  }

  /** `.wh..wh..opq` in a directory: what the layers below put in it goes (at any depth); what this layer put there stays. */
  private opaque(parts: string[], where: () => string): void {
    const directory = this.existingDirectory(parts, where);
    if (directory !== undefined) this.keepOnlyWritten(directory, parts.join('/'));
  }

  private keepOnlyWritten(directory: string, key: string): void {
    for (const name of readdirSync(directory)) {
      const child = key === '' ? name : `${key}/${name}`;
      const path = join(directory, name);
      if (!this.written.has(child)) removeAt(path);
      else if (kindAt(path) === 'directory') this.keepOnlyWritten(path, child);
    }
  }

  /**
   * The directory `parts` under the root, if it is one, reached through no link; undefined when it is not
   * there (or, `quiet`, not a directory either: a hard link's target is then no file unpacked before).
   */
  private existingDirectory(parts: string[], where: () => string, quiet = false): string | undefined {
    let directory = this.root;
    for (const part of parts) {
      directory = join(directory, part);
      const kind = kindAt(directory);
      if (kind === undefined || (quiet && kind !== 'directory')) return undefined;
      if (kind !== 'directory') throw imageError('IMAGE_INVALID', `${where()}: a whiteout under ${part}, which is not a directory`);
    }
    return directory;
  }
}
