// The three kinds of image a run can name (issue 43), made with real tools: an OCI layout (umoci), its
// oci-archive and docker-archive (skopeo), and a real registry on loopback (docker-registry, pushed to with
// skopeo). Each resolves to the same layers and unpacks to the same root, once; every digest is checked.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from './image.test-support.js';
import { findImage, listImages, pruneImages, resolveImage, unpackImage, useImageRoot } from './index.js';
import { push, registryMissing, startRegistry } from './registry.test-support.js';

afterEach(() => cleanupTempDirs());

function skopeoDigest(reference: string): string {
  const result = spawnSync('skopeo', ['inspect', '--tls-verify=false', '--format', '{{.Digest}}', reference], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout.trim();
}

/** A busybox image with a repository at /testbed, its WorkingDir, and an environment. */
async function testbedImage(): Promise<{ base: string; layout: string }> {
  const base = await createTempDir('images-');
  const layout = buildImage(
    join(base, 'layout'),
    'v1',
    (rootfs) => {
      mkdirSync(join(rootfs, 'testbed'));
      writeFileSync(join(rootfs, 'testbed', 'README'), 'the repository\n');
    },
    { workdir: '/testbed', env: ['PATH=/bin', 'LANG=C.UTF-8'] },
  );
  return { base, layout };
}

describe.skipIf(imageToolsMissing !== undefined)('an image from a layout or an archive (umoci, skopeo)', () => {
  it('resolves a layout by tag, unpacks it once into the cache, and finds it again by its digest', async () => {
    const { base, layout } = await testbedImage();
    const cacheDir = join(base, 'cache');
    const image = await resolveImage(`${layout}:v1`, { cacheDir });
    expect(image.digest).toBe(skopeoDigest(`oci:${layout}:v1`));
    expect(image.config).toMatchObject({ workingDir: '/testbed', env: { PATH: '/bin', LANG: 'C.UTF-8' } });
    const first = await unpackImage(image, { cacheDir });
    expect(first.reused).toBe(false);
    expect(readFileSync(join(first.root, 'testbed', 'README'), 'utf8')).toBe('the repository\n');
    expect(readFileSync(join(first.root, 'bin', 'busybox')).length).toBeGreaterThan(100_000);
    const again = await unpackImage(await resolveImage(layout, { cacheDir }), { cacheDir });
    expect(again).toMatchObject({ reused: true, root: first.root });
    expect(findImage(cacheDir, image.digest)).toMatchObject({ digest: image.digest, layers: image.layers });
    await expect(resolveImage(`${layout}:v2`, { cacheDir })).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
      message: expect.stringContaining('tags: v1'),
    });
    await expect(resolveImage('nope:tag', { cacheDir, cwd: base })).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
      message: `The image "nope:tag" is not a directory or a file here (${join(base, 'nope:tag')}), nor a registry reference (host[:port]/name:tag).`,
    });
  });

  it('reads the oci-archive and the docker-archive skopeo writes of it, to the same root', async () => {
    const { base, layout } = await testbedImage();
    const cacheDir = join(base, 'cache');
    const fromLayout = await unpackImage(await resolveImage(layout, { cacheDir }), { cacheDir });
    for (const [transport, file] of [
      ['oci-archive', join(base, 'image.oci.tar')],
      ['docker-archive', join(base, 'image.docker.tar')],
    ] as const) {
      const copied = spawnSync(
        'skopeo',
        ['copy', `oci:${layout}:v1`, `${transport}:${file}${transport === 'docker-archive' ? ':busy:v1' : ''}`],
        { encoding: 'utf8' },
      );
      expect(copied.status, copied.stderr).toBe(0);
      const image = await resolveImage(file, { cacheDir });
      expect(image.config.workingDir).toBe('/testbed');
      const unpacked = await unpackImage(image, { cacheDir });
      expect(unpacked).toMatchObject({ chainId: fromLayout.chainId, reused: true });
    }
    expect((await resolveImage(join(base, 'image.docker.tar'), { cacheDir })).digest).toMatch(/^sha256:/);
    // Its tag as docker save names it (skopeo too), its short name, or the tag alone.
    for (const tag of ['docker.io/library/busy:v1', 'busy:v1', 'v1']) {
      expect((await resolveImage(`${join(base, 'image.docker.tar')}:${tag}`, { cacheDir })).config.workingDir).toBe('/testbed');
    }
  });

  it('lists the cache with sizes, and prunes what no run uses', async () => {
    const { base, layout } = await testbedImage();
    const cacheDir = join(base, 'cache');
    const unpacked = await unpackImage(await resolveImage(layout, { cacheDir }), { cacheDir });
    const [listed] = listImages(cacheDir);
    expect(listed).toMatchObject({ chainId: unpacked.chainId, users: 0, record: { allocated_bytes: expect.any(Number) } });
    expect(listed!.record.allocated_bytes).toBeGreaterThan(100_000);
    const release = useImageRoot(cacheDir, unpacked.chainId);
    expect(listImages(cacheDir)[0]!.users).toBe(1);
    expect(pruneImages(cacheDir).removed).toEqual([]);
    release();
    expect(pruneImages(cacheDir).removed.map((root) => root.chainId)).toEqual([unpacked.chainId]);
    expect(listImages(cacheDir)).toEqual([]);
  });
});

describe.skipIf(imageToolsMissing !== undefined || registryMissing !== undefined)(
  'an image from a registry (docker-registry on loopback)',
  () => {
    it('pulls by tag and by digest, checks both, and unpacks what the layout unpacks', async () => {
      const { base, layout } = await testbedImage();
      const registry = await startRegistry(join(base, 'registry'));
      try {
        push(`oci:${layout}:v1`, registry, 'study/testbed:v1');
        const cacheDir = join(base, 'cache');
        const digest = skopeoDigest(`docker://${registry.host}/study/testbed:v1`);
        const byTag = await resolveImage(`${registry.host}/study/testbed:v1`, { cacheDir });
        expect(byTag.digest).toBe(digest);
        const byDigest = await resolveImage(`${registry.host}/study/testbed@${digest}`, { cacheDir });
        expect(byDigest.layers).toEqual(byTag.layers);
        const unpacked = await unpackImage(byDigest, { cacheDir });
        expect(readFileSync(join(unpacked.root, 'testbed', 'README'), 'utf8')).toBe('the repository\n');
        await expect(resolveImage(`${registry.host}/study/testbed:nope`, { cacheDir })).rejects.toMatchObject({ code: 'IMAGE_NOT_FOUND' });
      } finally {
        await registry.stop();
      }
    });
  },
);
