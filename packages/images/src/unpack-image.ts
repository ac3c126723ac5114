import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { isProcessAlive, processStartTicks } from '@delta/process-identity';
import { join } from 'node:path';
import { allocatedBytes, removeTree } from './tree.js';
import { blobFile, type ResolvedImage } from './resolved-image.js';
import { readLayer } from './read-layer.js';
import { DEFAULT_UNPACK_LIMITS, LayerWriter, type UnpackLimits, type UnpackTally } from './unpack-layer.js';
import { readRootRecord, type RootRecord, rootDirectory, writeRootRecord } from './root-record.js';

export interface UnpackedImage {
  /** The image's root directory, shared by every run over it: never to be written. */
  root: string;
  /** The cache's key of it: the sha256 of its layers' diff_ids, in order. */
  chainId: string;
  /** True when it was unpacked already (by this process, another, or an earlier one). */
  reused: boolean;
  record: RootRecord;
}

/** The chain id of an image's layers: the same layers in the same order share one root, whatever the image. */
export function chainIdOf(image: Pick<ResolvedImage, 'layers'>): string {
  return `sha256:${createHash('sha256')
    .update(image.layers.map((layer) => layer.diffId).join('\n'))
    .digest('hex')}`;
}

const inFlight = new Map<string, Promise<UnpackedImage>>();
const cleaned = new Set<string>();

/**
 * Removes, once per process and cache, the staging directories of unpacks whose process is gone (an engine
 * killed in the middle of one): named `<pid>-<start ticks>-<random>`, never one whose process still runs.
 */
function removeAbandonedStaging(cacheDir: string): void {
  if (cleaned.has(cacheDir)) return;
  cleaned.add(cacheDir);
  const staging = join(cacheDir, 'staging');
  let names: string[] = [];
  try {
    names = readdirSync(staging);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^(?:archive-)?(\d+)-(\d+)-[0-9a-f]+$/.exec(name);
    if (match && !isProcessAlive(Number(match[1]), match[2])) removeTree(join(staging, name));
  }
}

/**
 * The image's root, unpacked once into `cacheDir/roots/<chain id>/rootfs` and shared: a second caller (in
 * this process, or another) finds it there. Unpacking goes into a staging directory of its own, layer by
 * layer (read-layer.ts: streamed, every digest checked; unpack-layer.ts: nothing written outside it, no
 * device, no set-ID bit, whiteouts as the OCI spec says), and is renamed into place only once every layer
 * passed; a failure removes the staging directory and leaves the cache as it was. Two processes racing keep
 * the first rename's result.
 */
export function unpackImage(image: ResolvedImage, options: { cacheDir: string; limits?: Partial<UnpackLimits> }): Promise<UnpackedImage> {
  const chainId = chainIdOf(image);
  const key = `${options.cacheDir}\n${chainId}`;
  const running = inFlight.get(key);
  if (running) return running.then((unpacked) => ({ ...unpacked, reused: true }));
  const work = unpackOnce(image, chainId, options).finally(() => inFlight.delete(key));
  inFlight.set(key, work);
  return work;
}

async function unpackOnce(
  image: ResolvedImage,
  chainId: string,
  options: { cacheDir: string; limits?: Partial<UnpackLimits> },
): Promise<UnpackedImage> {
  const target = rootDirectory(options.cacheDir, chainId);
  const found = readRootRecord(target);
  if (found !== undefined) return { root: join(target, 'rootfs'), chainId, reused: true, record: remember(target, found, image) };
  const limits = { ...DEFAULT_UNPACK_LIMITS, ...options.limits };
  removeAbandonedStaging(options.cacheDir);
  const staging = join(
    options.cacheDir,
    'staging',
    `${process.pid}-${processStartTicks(process.pid) ?? '0'}-${randomBytes(6).toString('hex')}`,
  );
  mkdirSync(join(staging, 'rootfs'), { recursive: true, mode: 0o700 });
  try {
    const tally: UnpackTally = { bytes: 0, entries: 0, skipped: [] };
    for (const [index, layer] of image.layers.entries()) {
      const layerName = `${image.reference}: layer ${index + 1} of ${image.layers.length} (${layer.digest})`;
      const writer = new LayerWriter(join(staging, 'rootfs'), limits, tally, (path) => `${layerName}, entry ${JSON.stringify(path)}`);
      await readLayer(
        blobFile(image.blobs, layer.digest),
        layer,
        limits.maxBytes,
        () => layerName,
        (entry, body) => writer.apply(entry, body),
      );
    }
    const record: RootRecord = {
      chain_id: chainId,
      diff_ids: image.layers.map((layer) => layer.diffId),
      images: [{ digest: image.digest, reference: image.reference }],
      bytes: tally.bytes,
      allocated_bytes: allocatedBytes(join(staging, 'rootfs')),
      entries: tally.entries,
      skipped: tally.skipped.slice(0, 100),
      unpacked_at: new Date().toISOString(),
    };
    writeRootRecord(staging, record);
    mkdirSync(join(options.cacheDir, 'roots'), { recursive: true, mode: 0o700 });
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another process put it there first: its root is the same layers, checked as these were.
      const raced = readRootRecord(target);
      if (raced === undefined) throw error;
      removeTree(staging);
      return { root: join(target, 'rootfs'), chainId, reused: true, record: remember(target, raced, image) };
    }
    return { root: join(target, 'rootfs'), chainId, reused: false, record };
  } catch (error) {
    if (existsSync(staging)) removeTree(staging);
    throw error;
  }
}

/** The record of a root that serves one more image (another tag or manifest over the same layers). */
function remember(target: string, record: RootRecord, image: ResolvedImage): RootRecord {
  if (record.images.some((known) => known.digest === image.digest)) return record;
  const updated = { ...record, images: [...record.images, { digest: image.digest, reference: image.reference }] };
  try {
    writeRootRecord(target, updated);
  } catch {
    // A cache another user owns, or a full disk: the root serves as it is.
  }
  return updated;
}
