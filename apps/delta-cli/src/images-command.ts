import { formatBytes } from './batch/process-tree.js';
import { imageCacheOption } from './sandbox-flags.js';
import { parseDurationFlag } from './run-limit-flags.js';
import { usageError } from './usage-error.js';

export interface ImagesFlags {
  unusedFor?: string;
}

/**
 * `delta images [list]`: the cache of unpacked images (DELTA_IMAGE_CACHE, else ~/.cache/delta/images), one
 * root per line: its chain id, size on disk, last use, the runs using it now, the images it serves.
 * `delta images prune [--unused-for 7d]`: removes the roots no run uses (not used for that long), and the
 * blobs no remaining image needs.
 */
export async function imagesCommand(action: string | undefined, flags: ImagesFlags): Promise<number> {
  const { defaultImageCache } = await import('@delta/engine');
  const { listImages, pruneImages } = await import('@delta/images');
  const cacheDir = imageCacheOption().imageCache ?? defaultImageCache();
  if (action === undefined || action === 'list') {
    const roots = listImages(cacheDir);
    if (roots.length === 0) {
      process.stdout.write(`no images in ${cacheDir}\n`);
      return 0;
    }
    process.stdout.write(`${cacheDir}\n`);
    for (const root of roots) {
      const images = root.record.images.map((image) => `${image.reference} (${image.digest.slice(0, 19)})`).join(', ');
      const users = root.users === 0 ? 'unused now' : `${root.users} run${root.users === 1 ? '' : 's'} using it`;
      process.stdout.write(
        `${root.chainId.slice(7, 19)}  ${formatBytes(root.record.allocated_bytes).padStart(9)}  last used ${root.lastUsed.toISOString()}  ${users}  ${images}\n`,
      );
    }
    const total = roots.reduce((sum, root) => sum + root.record.allocated_bytes, 0);
    process.stdout.write(`${roots.length} root${roots.length === 1 ? '' : 's'}, ${formatBytes(total)}\n`);
    return 0;
  }
  if (action === 'prune') {
    const unusedForMs = flags.unusedFor === undefined ? 0 : parseDurationFlag('--unused-for', flags.unusedFor);
    const result = pruneImages(cacheDir, { unusedForMs });
    for (const root of result.removed)
      process.stdout.write(`removed ${root.chainId.slice(7, 19)} (${root.record.images.map((image) => image.reference).join(', ')})\n`);
    process.stdout.write(
      `pruned ${result.removed.length} root${result.removed.length === 1 ? '' : 's'}, freed ${formatBytes(result.freedBytes)}\n`,
    );
    return 0;
  }
  throw usageError(`unknown images action "${action}".`, 'delta images [list] | delta images prune [--unused-for 7d]');
}
