// readBounded: a layout's small files (index.json, manifests, configs) are read whole up to their bound, and
// cost what they hold, not the bound: hundreds of runs start at once, each reading them (bench/environments.mjs).
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { readBounded } from './resolved-image.js';

afterEach(() => cleanupTempDirs());

async function readFile(bytes: Buffer, maxBytes: number): Promise<Buffer> {
  const file = join(await createTempDir('delta-read-bounded-'), 'blob');
  writeFileSync(file, bytes);
  const fd = openSync(file, 'r');
  try {
    return readBounded(fd, maxBytes, () => new Error('too large'));
  } finally {
    closeSync(fd);
  }
}

describe('readBounded', () => {
  it('reads a file whole, empty, small, over several chunks, and exactly at the bound', async () => {
    expect((await readFile(Buffer.alloc(0), 10)).length).toBe(0);
    expect((await readFile(Buffer.from('{"a":1}'), 4 * 1024 * 1024)).toString()).toBe('{"a":1}');
    const large = Buffer.from(Array.from({ length: 200_000 }, (_, index) => index % 251));
    expect((await readFile(large, 200_000)).equals(large)).toBe(true);
  });

  it('refuses a byte past the bound', async () => {
    await expect(readFile(Buffer.alloc(11), 10)).rejects.toThrow('too large');
    await expect(readFile(Buffer.alloc(200_001), 200_000)).rejects.toThrow('too large');
  });

  it('holds what the file holds, not a buffer of the bound', async () => {
    const bytes = await readFile(Buffer.from('{}'), 8 * 1024 * 1024);
    expect(bytes.buffer.byteLength).toBeLessThan(64 * 1024);
  });
});
