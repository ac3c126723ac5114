import { accessSync, constants, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asDiskFault, DeltaError, safeParseJson, SystemError } from '@delta/errors';
import { z } from 'zod';
import { parseImageReference } from './image-reference.js';
import type { RegistryOptions } from './registry-client.js';
import { resolveArchive } from './resolve-archive.js';
import { resolveLayout } from './resolve-layout.js';
import { resolveRegistry } from './resolve-registry.js';
import type { ResolvedImage } from './resolved-image.js';

export interface ResolveImageOptions extends RegistryOptions {
  /** The cache: archives' and registries' blobs, unpacked roots, and a record of every image resolved. */
  cacheDir: string;
  /** Where a relative path is taken from (default: the process's working directory). */
  cwd?: string;
}

/** `cacheDir/images/<hex>.json`: an image resolved before, found again by its digest (`findImage`). */
function imageRecordFile(cacheDir: string, digest: string): string {
  return join(cacheDir, 'images', `${digest.replace(/^sha256:/, '')}.json`);
}

/**
 * Reads an image (see parseImageReference: a layout, an archive, a registry's), checking its manifest and
 * config against their digests; an archive's and a registry's blobs are kept in the cache. Its layers are
 * read when it is unpacked (unpackImage), checked then. The image is recorded in the cache, so that a run
 * that used it can find it again by its digest (`findImage`) without the network.
 */
export async function resolveImage(reference: string, options: ResolveImageOptions): Promise<ResolvedImage> {
  const parsed = parseImageReference(reference, options.cwd);
  makeCacheDirectory(options.cacheDir);
  const image =
    parsed.kind === 'layout'
      ? await resolveLayout(parsed.path, parsed.tag, reference)
      : parsed.kind === 'archive'
        ? await resolveArchive(parsed.path, parsed.tag, reference, options.cacheDir)
        : await resolveRegistry(parsed, reference, options.cacheDir, options);
  const file = imageRecordFile(options.cacheDir, image.digest);
  mkdirSync(join(options.cacheDir, 'images'), { recursive: true, mode: 0o700 });
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(image, null, 2)}\n`);
  renameSync(`${file}.${process.pid}.tmp`, file);
  return image;
}

/**
 * The cache's `images/` directory, made (or found) before anything is read: a cache this user may not write
 * (another user's, a read-only disk) is said as such, with the cache named and the way to choose another.
 */
function makeCacheDirectory(cacheDir: string): void {
  const directory = join(cacheDir, 'images');
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    accessSync(directory, constants.W_OK);
  } catch (error) {
    const fault = asDiskFault(error, directory);
    if (!DeltaError.isInstance(fault) || fault.kind !== 'system') throw error;
    throw new SystemError(`The image cache ${cacheDir} cannot be written by this user: ${fault.message}`, {
      code: fault.code as SystemError['code'],
      cause: error,
      file: directory,
      hint: `The cache belongs to the user who runs delta: set DELTA_IMAGE_CACHE to a directory of your own (the default is ~/.cache/delta/images), or fix the owner and mode of ${cacheDir} (\`ls -ld ${cacheDir} ${directory}\`).`,
    });
  }
}

const RecordedImage = z.looseObject({
  reference: z.string(),
  digest: z.string(),
  configDigest: z.string(),
  config: z.looseObject({ env: z.record(z.string(), z.string()) }),
  layers: z.array(z.looseObject({ digest: z.string(), size: z.number(), mediaType: z.string(), diffId: z.string() })),
  platform: z.looseObject({ os: z.string(), architecture: z.string() }),
  blobs: z.string(),
});

/** The image with this digest, as the cache recorded it when it was resolved; undefined when it was not. */
export function findImage(cacheDir: string, digest: string): ResolvedImage | undefined {
  let text: string;
  try {
    text = readFileSync(imageRecordFile(cacheDir, digest), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = safeParseJson(text, imageRecordFile(cacheDir, digest), { schema: RecordedImage });
  return parsed.success && parsed.data.digest === digest ? (parsed.data as unknown as ResolvedImage) : undefined;
}
