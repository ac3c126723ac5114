import { imageError } from './image-error.js';
import { type Descriptor, hostArchitecture, ImageConfigFile, ImageIndex, ImageManifest, imageConfigOf, MEDIA } from './oci-types.js';
import { type ImageLayer, parseImageJson, type ResolvedImage } from './resolved-image.js';

/** Reads a blob's bytes by digest, checked (a layout's file, a registry's answer). */
export type FetchBlob = (descriptor: Descriptor, kind: 'manifest' | 'config', what: string, maxBytes: number) => Promise<Buffer>;

export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
export const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

const LAYER_TYPES = [
  'application/vnd.oci.image.layer.v1.tar',
  'application/vnd.oci.image.layer.v1.tar+gzip',
  'application/vnd.docker.image.rootfs.diff.tar.gzip',
  'application/vnd.docker.image.rootfs.diff.tar',
];

/** Whether `bytes` hold an index (a list of manifests, one per platform) rather than one manifest. */
function isIndex(bytes: Buffer, mediaType: string | undefined): boolean {
  if (mediaType === MEDIA.ociIndex || mediaType === MEDIA.dockerList) return true;
  if (mediaType === MEDIA.ociManifest || mediaType === MEDIA.dockerManifest) return false;
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as { manifests?: unknown };
    return Array.isArray(parsed.manifests);
  } catch {
    return false;
  }
}

/** The manifest of an index for this machine (linux, its architecture), or an error listing what there is. */
export function pickPlatform(index: ImageIndex, reference: string): Descriptor {
  const architecture = hostArchitecture();
  const candidates = index.manifests.filter((entry) => entry.platform?.os === 'linux' && entry.platform.architecture === architecture);
  const chosen =
    candidates[0] ?? (index.manifests.length === 1 && index.manifests[0]!.platform === undefined ? index.manifests[0] : undefined);
  if (chosen === undefined) {
    const there = index.manifests
      .map((entry) => (entry.platform ? `${entry.platform.os}/${entry.platform.architecture}` : 'no platform'))
      .join(', ');
    throw imageError('IMAGE_INVALID', `${reference} has no build for linux/${architecture} (it has: ${there || 'none'})`);
  }
  return chosen;
}

/**
 * From the descriptor an index or a tag points at, the image: an index is resolved to this machine's
 * manifest, the manifest and the config are read and checked against their digests, and every layer is one
 * this package unpacks (a tar, plain or gzip; no zstd, no foreign layer), one per `diff_id`.
 */
export async function resolveFromDescriptor(top: Descriptor, fetch: FetchBlob, reference: string, blobs: string): Promise<ResolvedImage> {
  let descriptor = top;
  let bytes = await fetch(descriptor, 'manifest', `${reference}'s manifest ${descriptor.digest}`, MAX_MANIFEST_BYTES);
  if (isIndex(bytes, descriptor.mediaType)) {
    const index = parseImageJson(bytes, `${reference}'s index ${descriptor.digest}`, ImageIndex);
    descriptor = pickPlatform(index, reference);
    bytes = await fetch(descriptor, 'manifest', `${reference}'s manifest ${descriptor.digest}`, MAX_MANIFEST_BYTES);
    if (isIndex(bytes, descriptor.mediaType)) throw imageError('IMAGE_INVALID', `${reference}: an index inside an index is not read`);
  }
  const manifest = parseImageJson(bytes, `${reference}'s manifest ${descriptor.digest}`, ImageManifest);
  const configBytes = await fetch(manifest.config, 'config', `${reference}'s config ${manifest.config.digest}`, MAX_CONFIG_BYTES);
  const configFile = parseImageJson(configBytes, `${reference}'s config ${manifest.config.digest}`, ImageConfigFile);
  const diffIds = configFile.rootfs.diff_ids;
  if (diffIds.length !== manifest.layers.length) {
    throw imageError(
      'IMAGE_INVALID',
      `${reference}: its manifest has ${manifest.layers.length} layers, its config ${diffIds.length} diff_ids`,
    );
  }
  const layers: ImageLayer[] = manifest.layers.map((layer, index) => {
    const mediaType = layer.mediaType ?? 'application/vnd.oci.image.layer.v1.tar+gzip';
    if (!LAYER_TYPES.includes(mediaType) || (layer.urls?.length ?? 0) > 0) {
      throw imageError(
        'IMAGE_INVALID',
        `${reference}: layer ${layer.digest} is ${mediaType}${layer.urls ? ' (a foreign layer)' : ''}, which Delta does not unpack`,
      );
    }
    return { digest: layer.digest, size: layer.size, mediaType, diffId: diffIds[index]! };
  });
  return {
    reference,
    digest: descriptor.digest,
    configDigest: manifest.config.digest,
    config: imageConfigOf(configFile),
    layers,
    platform: { os: configFile.os ?? 'linux', architecture: configFile.architecture ?? hostArchitecture() },
    blobs,
  };
}
