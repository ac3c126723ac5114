import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { processStartTicks } from '@delta/process-identity';
import { imageError } from './image-error.js';
import { DockerArchiveManifest, ImageConfigFile, imageConfigOf, hostArchitecture } from './oci-types.js';
import { fileDigest, openBlob } from './read-layer.js';
import { resolveLayout } from './resolve-layout.js';
import { MAX_CONFIG_BYTES, MAX_MANIFEST_BYTES } from './resolve-manifest.js';
import { blobFile, checkDigest, parseImageJson, type ResolvedImage } from './resolved-image.js';
import { entryParts, parentsOf } from './safe-path.js';
import { tarEntries } from './tar-reader.js';
import { removeTree } from './tree.js';

/** Unpacks an archive's regular files (and directories) into `into`: never a link, never outside it. */
async function extractArchive(file: string, into: string, reference: string): Promise<void> {
  const fd = openBlob(file, () => reference);
  for await (const { entry, body } of tarEntries(createReadStream('', { fd }) as AsyncIterable<Buffer>)) {
    const where = () => `${reference}, entry ${JSON.stringify(entry.path)}`;
    const parts = entryParts(entry.path, where);
    if (parts.length === 0) continue;
    const directory = parentsOf(into, parts, where);
    if (entry.type === 'directory') mkdirSync(join(directory, parts.at(-1)!), { recursive: true });
    if (entry.type !== 'file') continue;
    const out = openSync(
      join(directory, parts.at(-1)!),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      for await (const chunk of body()) for (let at = 0; at < chunk.length; ) at += writeSync(out, chunk, at, chunk.length - at);
    } finally {
      closeSync(out);
    }
  }
}

/** A small file of the archive (manifest.json, a config), bounded. */
function readSmall(path: string, maxBytes: number, what: string): Buffer {
  if (statSync(path).size > maxBytes) throw imageError('IMAGE_INVALID', `${what} is larger than ${maxBytes} bytes`);
  return readFileSync(path);
}

/** Moves a checked blob file into the cache's blobs (kept if there already). */
function keepBlob(from: string, blobs: string, digest: string): void {
  const to = blobFile(blobs, digest);
  if (existsSync(to)) return;
  mkdirSync(join(blobs, 'sha256'), { recursive: true, mode: 0o700 });
  renameSync(from, to);
}

/**
 * An `oci-archive` (a tar of an image layout) or a `docker-archive` (`docker save`, `skopeo copy …
 * docker-archive:`): unpacked once into a staging directory of the cache, resolved there, and the image's
 * blobs moved into the cache's blobs directory (read from there from then on); `tag` picks an image of
 * several. A docker-archive has no manifest: its digest is its config's (Docker's image id), and its layers'
 * digests are their files' own.
 */
export async function resolveArchive(file: string, tag: string | undefined, reference: string, cacheDir: string): Promise<ResolvedImage> {
  const staging = join(
    cacheDir,
    'staging',
    `archive-${process.pid}-${processStartTicks(process.pid) ?? '0'}-${randomBytes(6).toString('hex')}`,
  );
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  const blobs = join(cacheDir, 'blobs');
  try {
    await extractArchive(file, staging, reference);
    if (existsSync(join(staging, 'index.json'))) {
      const image = await resolveLayout(staging, tag, reference);
      for (const digest of [image.digest, image.configDigest, ...image.layers.map((layer) => layer.digest)]) {
        if (existsSync(blobFile(image.blobs, digest))) keepBlob(blobFile(image.blobs, digest), blobs, digest);
      }
      return { ...image, blobs };
    }
    if (!existsSync(join(staging, 'manifest.json'))) {
      throw imageError(
        'IMAGE_INVALID',
        `${reference} is neither an oci-archive (no index.json in it) nor a docker-archive (no manifest.json)`,
      );
    }
    const manifests = parseImageJson(
      readSmall(join(staging, 'manifest.json'), MAX_MANIFEST_BYTES, `${reference}: manifest.json`),
      `${reference}: manifest.json`,
      DockerArchiveManifest,
    );
    const chosen =
      tag === undefined
        ? manifests.length === 1
          ? manifests[0]
          : undefined
        : // A tag as docker save names it (docker.io/library/app:latest), its short name (app:latest) or its tag alone (latest).
          manifests.find((entry) =>
            (entry.RepoTags ?? []).some((name) => name === tag || name.endsWith(`/${tag}`) || name.endsWith(`:${tag}`)),
          );
    if (chosen === undefined) {
      const tags = manifests.flatMap((entry) => entry.RepoTags ?? []).join(', ') || 'none';
      throw imageError(
        'IMAGE_NOT_FOUND',
        `${reference} ${tag === undefined ? `holds ${manifests.length} images: name one with ${reference}:TAG` : `has no image tagged ${tag}`} (tags: ${tags})`,
      );
    }
    const at = (path: string) => join(staging, ...entryParts(path, () => `${reference}: manifest.json names ${JSON.stringify(path)}`));
    const configBytes = readSmall(at(chosen.Config), MAX_CONFIG_BYTES, `${reference}'s config ${chosen.Config}`);
    const configDigest = await fileDigest(at(chosen.Config));
    const named = /([0-9a-f]{64})(?:\.json)?$/.exec(chosen.Config)?.[1];
    if (named !== undefined) checkDigest(configBytes, `sha256:${named}`, `${reference}'s config ${chosen.Config}`);
    const configFile = parseImageJson(configBytes, `${reference}'s config`, ImageConfigFile);
    if (configFile.rootfs.diff_ids.length !== chosen.Layers.length) {
      throw imageError(
        'IMAGE_INVALID',
        `${reference}: manifest.json names ${chosen.Layers.length} layers, its config ${configFile.rootfs.diff_ids.length} diff_ids`,
      );
    }
    const layers = [];
    for (const [index, path] of chosen.Layers.entries()) {
      const digest = await fileDigest(at(path));
      const head = Buffer.alloc(2);
      const fd = openBlob(at(path), () => `${reference}: layer ${path}`);
      try {
        readSync(fd, head, 0, 2, 0);
      } finally {
        closeSync(fd);
      }
      const gzip = head[0] === 0x1f && head[1] === 0x8b;
      const size = statSync(at(path)).size;
      layers.push({
        digest,
        size,
        mediaType: `application/vnd.oci.image.layer.v1.tar${gzip ? '+gzip' : ''}`,
        diffId: configFile.rootfs.diff_ids[index]!,
      });
      keepBlob(at(path), blobs, digest);
    }
    keepBlob(at(chosen.Config), blobs, configDigest);
    return {
      reference,
      digest: configDigest,
      configDigest,
      config: imageConfigOf(configFile),
      layers,
      platform: { os: configFile.os ?? 'linux', architecture: configFile.architecture ?? hostArchitecture() },
      blobs,
    };
  } finally {
    removeTree(staging);
  }
}
