// An image is untrusted input (issue 43): each hostile layer, written by hand, is refused or neutralised as
// docs/environments.md says, nothing is ever written outside the cache, and a refused image leaves nothing.
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { handLayout, tarOf, type HandEntry } from './image.test-support.js';
import { unpackImage } from './index.js';
import { resolveLayout } from './resolve-layout.js';

afterEach(() => cleanupTempDirs());

/** Unpacks an image of `layers` (each a list of entries) into a fresh cache; returns its root, or the error. */
async function unpack(
  layers: HandEntry[][],
  tamper?: Parameters<typeof handLayout>[2],
  limits?: Parameters<typeof unpackImage>[1]['limits'],
) {
  const base = await createTempDir('hostile-');
  const layout = handLayout(join(base, 'layout'), layers.map(tarOf), tamper);
  const cacheDir = join(base, 'cache');
  try {
    const image = await resolveLayout(layout, undefined, layout);
    const unpacked = await unpackImage(image, { cacheDir, ...(limits ? { limits } : {}) });
    return { base, cacheDir, root: unpacked.root, error: undefined };
  } catch (error) {
    return { base, cacheDir, root: undefined, error: error as Error & { code?: string } };
  }
}

/** The cache after a refused unpack: no root, no staging left. */
function expectNothingLeft(cacheDir: string) {
  expect(existsSync(join(cacheDir, 'roots')) ? readdirSync(join(cacheDir, 'roots')) : []).toEqual([]);
  expect(existsSync(join(cacheDir, 'staging')) ? readdirSync(join(cacheDir, 'staging')) : []).toEqual([]);
}

describe('a hostile layer', () => {
  it('with a ../ path is refused, naming the layer and the entry; nothing is written outside', async () => {
    const { base, cacheDir, error } = await unpack([[{ path: '../../escaped.txt', content: 'out' }]]);
    expect(error).toMatchObject({
      code: 'IMAGE_INVALID',
      message: expect.stringMatching(/layer 1 of 1 \(sha256:[0-9a-f]{64}\), entry "\.\.\/\.\.\/escaped\.txt": its path .* climbs out/),
    });
    expect(existsSync(join(base, 'escaped.txt'))).toBe(false);
    expectNothingLeft(cacheDir);
  });

  it('with an absolute path writes it inside the root, where the image means it', async () => {
    const { root } = await unpack([[{ path: '/etc/motd', content: 'inside' }]]);
    expect(readFileSync(join(root!, 'etc', 'motd'), 'utf8')).toBe('inside');
  });

  it('that links a directory to / and then writes through the link is refused', async () => {
    const { base, error, cacheDir } = await unpack([
      [
        { path: 'etc', type: 'symlink', linkpath: '/' },
        { path: 'etc/pwned', content: 'x' },
      ],
    ]);
    expect(error).toMatchObject({ code: 'IMAGE_INVALID', message: expect.stringContaining('written through the symbolic link etc') });
    expect(existsSync(join(base, 'pwned'))).toBe(false);
    expectNothingLeft(cacheDir);
  });

  it('that links a directory in one layer and writes under it in the next is refused too', async () => {
    const { error } = await unpack([[{ path: 'data', type: 'symlink', linkpath: '/' }], [{ path: 'data/tmp/pwned', content: 'x' }]]);
    expect(error).toMatchObject({
      code: 'IMAGE_INVALID',
      message: expect.stringMatching(/layer 2 of 2 .*written through the symbolic link data/),
    });
  });

  it('keeps a symbolic link as a link, whatever its target, and never follows it', async () => {
    const { root } = await unpack([[{ path: 'bin/host-shadow', type: 'symlink', linkpath: '/etc/shadow' }]]);
    expect(lstatSync(join(root!, 'bin', 'host-shadow')).isSymbolicLink()).toBe(true);
  });

  it('with a hard link out of the root, or through a link, is refused', async () => {
    const out = await unpack([[{ path: 'passwd', type: 'hardlink', linkpath: '../../../../etc/passwd' }]]);
    expect(out.error).toMatchObject({ code: 'IMAGE_INVALID', message: expect.stringContaining('climbs out') });
    const absolute = await unpack([[{ path: 'passwd', type: 'hardlink', linkpath: '/etc/passwd' }]]);
    // An absolute target names the image's own /etc/passwd, which is not there.
    expect(absolute.error).toMatchObject({ code: 'IMAGE_INVALID', message: expect.stringContaining('no file unpacked before it') });
    const through = await unpack([
      [
        { path: 'host', type: 'symlink', linkpath: '/etc' },
        { path: 'passwd', type: 'hardlink', linkpath: 'host/passwd' },
      ],
    ]);
    expect(through.error).toMatchObject({ code: 'IMAGE_INVALID', message: expect.stringContaining('no file unpacked before it') });
    const inside = await unpack([
      [
        { path: 'a', content: 'same' },
        { path: 'b', type: 'hardlink', linkpath: 'a' },
      ],
    ]);
    expect(statSync(join(inside.root!, 'b')).ino).toBe(statSync(join(inside.root!, 'a')).ino);
  });

  it('makes no device node and keeps no set-user-ID or set-group-ID bit', async () => {
    const { root } = await unpack([
      [
        { path: 'dev/sda', type: 'character' },
        { path: 'usr/bin/su', content: '#!/bin/sh\n', mode: 0o4755 },
        { path: 'usr/bin/wall', content: '#!/bin/sh\n', mode: 0o2755 },
      ],
    ]);
    expect(existsSync(join(root!, 'dev', 'sda'))).toBe(false);
    expect(statSync(join(root!, 'usr', 'bin', 'su')).mode & 0o7777).toBe(0o755);
    expect(statSync(join(root!, 'usr', 'bin', 'wall')).mode & 0o7777).toBe(0o755);
  });

  it('applies whiteouts and opaque directories as the OCI image spec says', async () => {
    const { root } = await unpack([
      [
        { path: 'keep.txt', content: 'lower' },
        { path: 'gone.txt', content: 'lower' },
        { path: 'opaque/old.txt', content: 'lower' },
        { path: 'opaque/sub/older.txt', content: 'lower' },
      ],
      [
        { path: '.wh.gone.txt' },
        { path: 'opaque/.wh..wh..opq' },
        { path: 'opaque/new.txt', content: 'upper' },
        { path: 'same.txt', content: 'this layer' },
        // A whiteout never hides what its own layer wrote.
        { path: '.wh.same.txt' },
      ],
    ]);
    expect(readdirSync(root!).sort()).toEqual(['keep.txt', 'opaque', 'same.txt']);
    expect(readdirSync(join(root!, 'opaque'))).toEqual(['new.txt']);
  });

  it('whose bytes are not its digest, or whose diff_id is not its content, is refused before anything is kept', async () => {
    const bytes = await unpack([[{ path: 'a', content: 'a' }]], { layerBytes: (_index, gz) => Buffer.concat([gz, Buffer.from('tail')]) });
    expect(bytes.error).toMatchObject({ code: 'IMAGE_DIGEST_MISMATCH', message: expect.stringContaining('is not what its digest names') });
    expectNothingLeft(bytes.cacheDir);
    const diff = await unpack([[{ path: 'a', content: 'a' }]], { diffId: () => `sha256:${'0'.repeat(64)}` });
    expect(diff.error).toMatchObject({ code: 'IMAGE_DIGEST_MISMATCH', message: expect.stringContaining('diff_id') });
    expectNothingLeft(diff.cacheDir);
  });

  it('past its size or entry bound (a gzip bomb) stops there, refused', async () => {
    const bomb = await unpack([[{ path: 'zeros', content: Buffer.alloc(4 * 1024 * 1024) }]], undefined, { maxBytes: 1024 * 1024 });
    expect(bomb.error).toMatchObject({
      code: 'IMAGE_INVALID',
      message: expect.stringMatching(/more than 1048576 bytes|larger than 1048576 bytes/),
    });
    expectNothingLeft(bomb.cacheDir);
    const many = await unpack([Array.from({ length: 10 }, (_, index) => ({ path: `f${index}`, content: 'x' }))], undefined, {
      maxEntries: 5,
    });
    expect(many.error).toMatchObject({ code: 'IMAGE_INVALID', message: expect.stringContaining('more than 5 entries') });
    expectNothingLeft(many.cacheDir);
  });
});
