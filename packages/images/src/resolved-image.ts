import { createHash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '@delta/errors';
import type { z } from 'zod';
import { imageError } from './image-error.js';
import type { ImageConfig } from './oci-types.js';
import { openBlob } from './read-layer.js';

/** One layer of an image: its blob (digest, size, media type) and what it is uncompressed (`diffId`). */
export interface ImageLayer {
  digest: string;
  size: number;
  mediaType: string;
  diffId: string;
}

/** An image whose manifest and config were read and checked against their digests; its layers not yet read. */
export interface ResolvedImage {
  /** The reference as given (a layout, an archive, a registry reference). */
  reference: string;
  /**
   * The image's digest: its manifest's (what a registry and `skopeo inspect` call the image's digest), or, for
   * a docker-archive, which has no manifest, its config's (Docker's image id).
   */
  digest: string;
  configDigest: string;
  config: ImageConfig;
  layers: ImageLayer[];
  platform: { os: string; architecture: string };
  /** The directory of its blobs (`sha256/<hex>` files): a layout's own, or the cache's. */
  blobs: string;
}

/** A blob's file in a blobs directory. */
export function blobFile(blobs: string, digest: string): string {
  return join(blobs, 'sha256', digest.slice('sha256:'.length));
}

/**
 * The whole of the open file `fd`, refused (`tooLarge`) past `maxBytes`. Read in chunks of at most 64 KiB, so
 * that a file of a few hundred bytes costs a few hundred bytes: a buffer of the bound (megabytes, zeroed) per
 * read, for every run's index.json, manifest and config, made hundreds of runs starting at once hold
 * gigabytes (bench/environments.mjs).
 */
export function readBounded(fd: number, maxBytes: number, tooLarge: () => Error): Buffer {
  const parts: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - length));
    const read = readSync(fd, chunk, 0, chunk.length, length);
    if (read === 0) break;
    parts.push(chunk.subarray(0, read));
    length += read;
    if (length > maxBytes) throw tooLarge();
  }
  return Buffer.concat(parts, length);
}

/** The bytes of a small blob (a manifest, a config), checked against its digest (and size, when known), at most `maxBytes`. */
export function readVerifiedBlob(blobs: string, digest: string, what: string, maxBytes: number, size?: number): Buffer {
  const file = blobFile(blobs, digest);
  const fd = openBlob(file, () => what);
  try {
    const bytes = readBounded(fd, maxBytes, () => imageError('IMAGE_INVALID', `${what} is larger than ${maxBytes} bytes`));
    checkDigest(bytes, digest, what, size);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** Refuses `bytes` that are not what `digest` (and `size`) name. */
export function checkDigest(bytes: Buffer, digest: string, what: string, size?: number): void {
  const found = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (found !== digest || (size !== undefined && size !== bytes.length)) {
    throw imageError(
      'IMAGE_DIGEST_MISMATCH',
      `${what} is not what its digest names: its ${bytes.length} bytes hash to ${found}, expected ${digest}${size === undefined ? '' : ` (${size} bytes)`}`,
    );
  }
}

/** JSON of an image, checked with `schema`: an error names the image part it is. */
export function parseImageJson<T extends z.ZodType>(bytes: Buffer, what: string, schema: T): z.infer<T> {
  try {
    return parseJson(bytes.toString('utf8'), what, { schema }) as z.infer<T>;
  } catch (error) {
    throw imageError('IMAGE_INVALID', `${what} is not valid: ${(error as Error).message}`);
  }
}
