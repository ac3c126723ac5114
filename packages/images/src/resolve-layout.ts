import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { imageError } from './image-error.js';
import { ImageIndex } from './oci-types.js';
import { openBlob } from './read-layer.js';
import { MAX_MANIFEST_BYTES, resolveFromDescriptor } from './resolve-manifest.js';
import { parseImageJson, readBounded, readVerifiedBlob, type ResolvedImage } from './resolved-image.js';

const REF_NAME = 'org.opencontainers.image.ref.name';

/** A small file of a layout (index.json): a regular file, bounded. */
function readLayoutFile(file: string, what: string): Buffer {
  const fd = openBlob(file, () => what);
  try {
    return readBounded(fd, MAX_MANIFEST_BYTES, () => imageError('IMAGE_INVALID', `${what} is larger than ${MAX_MANIFEST_BYTES} bytes`));
  } finally {
    closeSync(fd);
  }
}

/**
 * An OCI image layout directory (`oci-layout`, `index.json`, `blobs/sha256/…`, as umoci and `skopeo copy …
 * oci:DIR:TAG` write it): the manifest tagged `tag` (its `org.opencontainers.image.ref.name`), or without a
 * tag the only one; its blobs are read in place.
 */
export async function resolveLayout(dir: string, tag: string | undefined, reference: string): Promise<ResolvedImage> {
  readLayoutFile(join(dir, 'oci-layout'), `${reference}: oci-layout`);
  const index = parseImageJson(readLayoutFile(join(dir, 'index.json'), `${reference}: index.json`), `${reference}: index.json`, ImageIndex);
  const tags = index.manifests.map((entry) => entry.annotations?.[REF_NAME]).filter((name): name is string => name !== undefined);
  const chosen =
    tag === undefined
      ? index.manifests.length === 1
        ? index.manifests[0]
        : undefined
      : index.manifests.find((entry) => entry.annotations?.[REF_NAME] === tag);
  if (chosen === undefined) {
    throw imageError(
      'IMAGE_NOT_FOUND',
      tag === undefined
        ? `${reference} holds ${index.manifests.length} images: name one with ${reference}:TAG (tags: ${tags.join(', ') || 'none'})`
        : `${reference} has no image tagged ${tag} (tags: ${tags.join(', ') || 'none'})`,
    );
  }
  const blobs = join(dir, 'blobs');
  return resolveFromDescriptor(
    chosen,
    async (descriptor, _kind, what, maxBytes) => readVerifiedBlob(blobs, descriptor.digest, what, maxBytes, descriptor.size),
    reference,
    blobs,
  );
}
