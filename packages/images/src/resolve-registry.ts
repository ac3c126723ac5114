import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { imageError } from './image-error.js';
import type { ImageReference } from './image-reference.js';
import { MEDIA } from './oci-types.js';
import { boundedBody, RegistryClient, type RegistryOptions } from './registry-client.js';
import { MAX_MANIFEST_BYTES, resolveFromDescriptor } from './resolve-manifest.js';
import { blobFile, checkDigest, type ResolvedImage } from './resolved-image.js';

const ACCEPT = [MEDIA.ociIndex, MEDIA.ociManifest, MEDIA.dockerList, MEDIA.dockerManifest].join(', ');

/** Writes `bytes` as a blob of the cache (whole, renamed into place). */
function keep(blobs: string, digest: string, bytes: Buffer): void {
  const file = blobFile(blobs, digest);
  if (existsSync(file)) return;
  mkdirSync(join(blobs, 'sha256'), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.part`;
  writeFileSync(temporary, bytes, { mode: 0o600 });
  renameSync(temporary, file);
}

/** Downloads a layer into the cache's blobs, streamed, checked against its digest and size before it is kept. */
async function download(client: RegistryClient, blobs: string, layer: { digest: string; size: number }, what: string): Promise<void> {
  const file = blobFile(blobs, layer.digest);
  if (existsSync(file)) return;
  mkdirSync(join(blobs, 'sha256'), { recursive: true, mode: 0o700 });
  const response = await client.get(`blobs/${layer.digest}`);
  const temporary = `${file}.${randomBytes(6).toString('hex')}.part`;
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  const hash = createHash('sha256');
  let total = 0;
  try {
    for await (const chunk of response.body ?? []) {
      total += chunk.length;
      if (total > layer.size)
        throw imageError('IMAGE_DIGEST_MISMATCH', `${what} is longer than the ${layer.size} bytes its descriptor says`);
      hash.update(chunk);
      for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
    }
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  const found = `sha256:${hash.digest('hex')}`;
  if (found !== layer.digest || total !== layer.size) {
    rmSync(temporary, { force: true });
    throw imageError(
      'IMAGE_DIGEST_MISMATCH',
      `${what} is not what its digest names: the registry sent ${total} bytes hashing to ${found}, expected ${layer.digest} (${layer.size} bytes)`,
    );
  }
  renameSync(temporary, file);
}

/**
 * An image of a registry: its manifest (by tag, or by digest, which its bytes must match; a tag's manifest
 * must match the digest the registry says it has), this machine's manifest of an index, its config and its
 * layers, each checked and kept in the cache's blobs (so that a run can be continued offline).
 */
export async function resolveRegistry(
  reference: Extract<ImageReference, { kind: 'registry' }>,
  text: string,
  cacheDir: string,
  options: RegistryOptions = {},
): Promise<ResolvedImage> {
  const client = new RegistryClient(reference.host, reference.repository, options);
  const blobs = join(cacheDir, 'blobs');
  const ref = reference.digest ?? reference.tag ?? 'latest';
  const response = await client.get(`manifests/${ref}`, ACCEPT);
  const told = response.headers.get('docker-content-digest') ?? undefined;
  const top = await boundedBody(response, MAX_MANIFEST_BYTES, `${text}'s manifest`);
  const topDigest = `sha256:${createHash('sha256').update(top).digest('hex')}`;
  if (reference.digest !== undefined) checkDigest(top, reference.digest, `${text}'s manifest`);
  else if (told !== undefined && told !== topDigest) {
    throw imageError(
      'IMAGE_DIGEST_MISMATCH',
      `${text}'s manifest is not what the registry says: it hashes to ${topDigest}, the registry says ${told}`,
    );
  }
  const image = await resolveFromDescriptor(
    { digest: topDigest, size: top.length, mediaType: response.headers.get('content-type')?.split(';')[0] ?? undefined },
    async (descriptor, kind, what, maxBytes) => {
      const bytes =
        descriptor.digest === topDigest
          ? top
          : await boundedBody(
              await client.get(
                `${kind === 'manifest' ? 'manifests' : 'blobs'}/${descriptor.digest}`,
                kind === 'manifest' ? ACCEPT : undefined,
              ),
              maxBytes,
              what,
            );
      checkDigest(bytes, descriptor.digest, what, descriptor.size);
      keep(blobs, descriptor.digest, bytes);
      return bytes;
    },
    text,
    blobs,
  );
  for (const [index, layer] of image.layers.entries()) {
    await download(client, blobs, layer, `${text}: layer ${index + 1} of ${image.layers.length} (${layer.digest})`);
  }
  return image;
}
