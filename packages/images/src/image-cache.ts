import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, processStartTicks } from '@delta/process-identity';
import { findImage } from './resolve-image.js';
import { blobFile } from './resolved-image.js';
import { readRootRecord, type RootRecord, rootDirectory } from './root-record.js';
import { removeTree } from './tree.js';

/** A root of the cache, as `delta images` lists it. */
export interface CachedRoot {
  chainId: string;
  directory: string;
  record: RootRecord;
  /** When a run last started over it (or when it was unpacked). */
  lastUsed: Date;
  /** Processes using it now (runs over it). */
  users: number;
}

/** The processes marked as using `directory` now (markers of ended ones are removed). */
function liveUsers(directory: string): number {
  const users = join(directory, 'users');
  let names: string[] = [];
  try {
    names = readdirSync(users);
  } catch {
    return 0;
  }
  let live = 0;
  for (const name of names) {
    const [pid, ticks] = name.split('-');
    if (isProcessAlive(Number(pid), ticks)) live += 1;
    else rmSync(join(users, name), { force: true });
  }
  return live;
}

/**
 * Marks the root of `chainId` as used by this process (a run over it) until `release` is called: pruning
 * leaves it alone meanwhile, whatever its age. A process that dies without releasing it is seen as gone.
 */
export function useImageRoot(cacheDir: string, chainId: string): () => void {
  const directory = rootDirectory(cacheDir, chainId);
  mkdirSync(join(directory, 'users'), { recursive: true });
  const marker = join(directory, 'users', `${process.pid}-${processStartTicks(process.pid) ?? '0'}-${randomBytes(4).toString('hex')}`);
  writeFileSync(marker, '');
  const now = new Date();
  utimesSync(join(directory, 'root.json'), now, now);
  return () => rmSync(marker, { force: true });
}

/** Every root of the cache, most recently used first. */
export function listImages(cacheDir: string): CachedRoot[] {
  const roots = join(cacheDir, 'roots');
  if (!existsSync(roots)) return [];
  const found: CachedRoot[] = [];
  for (const name of readdirSync(roots)) {
    const directory = join(roots, name);
    const record = readRootRecord(directory);
    if (record === undefined) continue;
    found.push({
      chainId: record.chain_id,
      directory,
      record,
      lastUsed: statSync(join(directory, 'root.json')).mtime,
      users: liveUsers(directory),
    });
  }
  return found.sort((a, b) => b.lastUsed.getTime() - a.lastUsed.getTime());
}

/** What pruning removed: the roots, and the bytes they and the blobs no image needs any more took. */
export interface PruneResult {
  removed: CachedRoot[];
  freedBytes: number;
}

/**
 * Removes the roots not used by a run now and not used since `unusedForMs` (all of them when not given),
 * then the cache's blobs and image records no remaining root needs. A layout directory's own blobs are never
 * touched: they are not the cache's.
 */
export function pruneImages(cacheDir: string, options: { unusedForMs?: number } = {}): PruneResult {
  const cutoff = Date.now() - (options.unusedForMs ?? 0);
  const removed: CachedRoot[] = [];
  let freedBytes = 0;
  for (const root of listImages(cacheDir)) {
    if (root.users > 0 || root.lastUsed.getTime() > cutoff) continue;
    freedBytes += root.record.allocated_bytes;
    removeTree(root.directory);
    removed.push(root);
  }
  const kept = new Set(listImages(cacheDir).flatMap((root) => root.record.images.map((image) => image.digest)));
  const needed = new Set<string>();
  const records = join(cacheDir, 'images');
  for (const name of existsSync(records) ? readdirSync(records) : []) {
    const image = findImage(cacheDir, `sha256:${name.replace(/\.json$/, '')}`);
    if (image !== undefined && kept.has(image.digest)) {
      for (const digest of [image.digest, image.configDigest, ...image.layers.map((layer) => layer.digest)]) needed.add(digest);
    } else rmSync(join(records, name), { force: true });
  }
  const blobs = join(cacheDir, 'blobs', 'sha256');
  for (const name of existsSync(blobs) ? readdirSync(blobs) : []) {
    if (needed.has(`sha256:${name}`)) continue;
    const file = blobFile(join(cacheDir, 'blobs'), `sha256:${name}`);
    freedBytes += statSync(file).blocks * 512;
    rmSync(file, { force: true });
  }
  return { removed, freedBytes };
}
