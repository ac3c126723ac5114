import type { CachedRoot, PruneResult } from '@delta/images';
import { formatBytes } from './batch/process-tree.js';

/** `delta images`: the cache directory, one line per unpacked root (its chain id, size, last use, users, images), then the totals. */
export function imageCacheText(cacheDir: string, roots: readonly CachedRoot[]): string {
  if (roots.length === 0) return `no images in ${cacheDir}\n`;
  const lines = [cacheDir];
  for (const root of roots) {
    const images = root.record.images.map((image) => `${image.reference} (${image.digest.slice(0, 19)})`).join(', ');
    const users = root.users === 0 ? 'unused now' : `${root.users} run${root.users === 1 ? '' : 's'} using it`;
    lines.push(
      `${root.chainId.slice(7, 19)}  ${formatBytes(root.record.allocated_bytes).padStart(9)}  last used ${root.lastUsed.toISOString()}  ${users}  ${images}`,
    );
  }
  const total = roots.reduce((sum, root) => sum + root.record.allocated_bytes, 0);
  lines.push(`${roots.length} root${roots.length === 1 ? '' : 's'}, ${formatBytes(total)}`);
  return `${lines.join('\n')}\n`;
}

/** `delta images prune`: each root removed, then how many and the space freed. */
export function imagePruneText(result: PruneResult): string {
  const lines = result.removed.map(
    (root) => `removed ${root.chainId.slice(7, 19)} (${root.record.images.map((image) => image.reference).join(', ')})`,
  );
  lines.push(`pruned ${result.removed.length} root${result.removed.length === 1 ? '' : 's'}, freed ${formatBytes(result.freedBytes)}`);
  return `${lines.join('\n')}\n`;
}
