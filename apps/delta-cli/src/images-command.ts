import { imageCacheText, imagePruneText } from '@delta/views';
import { imageCacheOption } from './sandbox-flags.js';
import { parseDurationFlag } from '@delta/engine';
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
    process.stdout.write(imageCacheText(cacheDir, listImages(cacheDir)));
    return 0;
  }
  if (action === 'prune') {
    const unusedForMs = flags.unusedFor === undefined ? 0 : parseDurationFlag('--unused-for', flags.unusedFor);
    process.stdout.write(imagePruneText(pruneImages(cacheDir, { unusedForMs })));
    return 0;
  }
  throw usageError(`unknown images action "${action}".`, 'delta images [list] | delta images prune [--unused-for 7d]');
}
