import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** A path a run changed in its image's root, outside its workspace. */
export interface LayerChange {
  /** Absolute, as the run's tools saw it. */
  path: string;
  /** `written`: a file or link the run made or changed; `deleted`: one of the image's it removed. */
  change: 'written' | 'deleted';
}

/**
 * What a run changed outside its workspace: the files and links of its layer's `upper/` (what the overlay
 * copied up or made) and its whiteouts (character devices 0/0: what it deleted), first `limit` of them in
 * path order. Directories themselves are not listed: one made or emptied shows through what is in it. A
 * directory the run replaced whole reads as the files it now holds (overlayfs marks it in an extended
 * attribute Node cannot read). Everything there was written by the run's tools, so it is walked without
 * following a link and never opened.
 */
export function listLayerChanges(layer: string, limit = 10_000): { changes: LayerChange[]; more: boolean } {
  const changes: LayerChange[] = [];
  let more = false;
  const walk = (directory: string, inside: string): void => {
    let names: string[];
    try {
      names = readdirSync(directory).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (changes.length >= limit) {
        more = true;
        return;
      }
      const path = join(directory, name);
      const stats = lstatSync(path, { bigint: true });
      if (stats.isDirectory()) walk(path, join(inside, name));
      else changes.push({ path: join(inside, name), change: stats.isCharacterDevice() && stats.rdev === 0n ? 'deleted' : 'written' });
    }
  };
  walk(join(layer, 'upper'), '/');
  return { changes, more };
}

/** Removes the overlay's `work/` of a layer no sandbox uses any more, so that a plain `rm -r` of the run removes its layer too. */
export function removeLayerWork(layer: string): void {
  removeLayer(join(layer, 'work'));
}

/**
 * Removes a run's layer. overlayfs leaves directories in `work/` that nobody may enter (mode 0), which a
 * plain recursive removal cannot empty: every directory is opened to its owner first, never through a link.
 */
export function removeLayer(layer: string): void {
  const open = (directory: string): void => {
    try {
      if (!lstatSync(directory).isDirectory()) return;
      chmodSync(directory, 0o700);
      for (const name of readdirSync(directory)) open(join(directory, name));
    } catch {
      // Gone already, or not ours to open: the removal below says so if it matters.
    }
  };
  open(layer);
  rmSync(layer, { recursive: true, force: true });
}
