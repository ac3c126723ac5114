// A registry is untrusted too (issue 43): one of our own on loopback serves a manifest that is not the digest
// asked for, or not the digest it claims, or a layer of other bytes; each is refused and nothing is kept.
// Token auth is followed as the distribution spec says; plain HTTP goes to loopback hosts only.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveImage, unpackImage } from './index.js';
import { RegistryClient } from './registry-client.js';
import { startFakeRegistry } from './registry.test-support.js';

afterEach(() => cleanupTempDirs());

const sha = (bytes: Buffer | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const layer = Buffer.from('not a tar, but what the layer digest names');
const config = Buffer.from(JSON.stringify({ os: 'linux', architecture: 'amd64', rootfs: { type: 'layers', diff_ids: [sha('x')] } }));
const manifest = Buffer.from(
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: sha(layer), size: layer.length }],
  }),
);

describe('a hostile registry', () => {
  it('serving another manifest than the digest asked for is refused', async () => {
    const registry = await startFakeRegistry((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' });
      response.end(manifest);
    });
    try {
      const cacheDir = join(await createTempDir('hostile-registry-'), 'cache');
      const asked = sha('another manifest');
      await expect(resolveImage(`${registry.host}/x/y@${asked}`, { cacheDir })).rejects.toMatchObject({
        code: 'IMAGE_DIGEST_MISMATCH',
        message: expect.stringContaining(`expected ${asked}`),
      });
      expect(existsSync(join(cacheDir, 'blobs'))).toBe(false);
    } finally {
      await registry.close();
    }
  });

  it('whose manifest is not the digest it claims for a tag, or whose layer is other bytes, is refused', async () => {
    const liar = await startFakeRegistry((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json', 'docker-content-digest': sha('other') });
      response.end(manifest);
    });
    const swapper = await startFakeRegistry((request, response) => {
      const url = request.url ?? '';
      response.writeHead(200);
      if (url.includes('/manifests/')) response.end(manifest);
      else if (url.endsWith(sha(config))) response.end(config);
      else response.end(Buffer.from('swapped layer bytes, the same length as before!!!').subarray(0, layer.length));
    });
    try {
      const cacheDir = join(await createTempDir('hostile-registry-'), 'cache');
      await expect(resolveImage(`${liar.host}/x/y:v1`, { cacheDir })).rejects.toMatchObject({ code: 'IMAGE_DIGEST_MISMATCH' });
      await expect(resolveImage(`${swapper.host}/x/y:v1`, { cacheDir })).rejects.toMatchObject({
        code: 'IMAGE_DIGEST_MISMATCH',
        message: expect.stringContaining('layer 1 of 1'),
      });
      // The config it sent was right and is kept; the layer is not.
      expect(readdirSync(join(cacheDir, 'blobs', 'sha256'))).not.toContain(sha(layer).slice(7));
    } finally {
      await Promise.all([liar.close(), swapper.close()]);
    }
  });

  it('asking for a token gets one from its realm with the credentials given, then serves the image', async () => {
    const seen: string[] = [];
    const registry = await startFakeRegistry((request, response) => {
      seen.push(`${request.url} ${request.headers.authorization ?? '-'}`);
      if (request.url?.startsWith('/token')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ token: 'granted' }));
      } else if (request.headers.authorization !== 'Bearer granted') {
        response.writeHead(401, {
          'www-authenticate': `Bearer realm="http://${request.headers.host}/token",service="test",scope="repository:x/y:pull"`,
        });
        response.end();
      } else {
        response.writeHead(200);
        response.end(request.url?.includes('/manifests/') ? manifest : request.url?.endsWith(sha(config)) ? config : layer);
      }
    });
    try {
      const cacheDir = join(await createTempDir('hostile-registry-'), 'cache');
      const image = await resolveImage(`${registry.host}/x/y:v1`, { cacheDir, credentials: { username: 'me', password: 'pw' } });
      expect(image.digest).toBe(sha(manifest));
      expect(seen[1]).toBe(`/token?service=test&scope=repository%3Ax%2Fy%3Apull Basic ${Buffer.from('me:pw').toString('base64')}`);
      // The layer is no tar: refused when unpacked (its digest was right), naming it.
      await expect(unpackImage(image, { cacheDir })).rejects.toMatchObject({
        code: 'IMAGE_INVALID',
        message: expect.stringContaining('is not a readable layer'),
      });
    } finally {
      await registry.close();
    }
  });

  it('is spoken to over HTTPS unless it is this machine, or plain HTTP is allowed', () => {
    expect(new RegistryClient('registry.example.org', 'x/y').base).toBe('https://registry.example.org/v2/x/y');
    expect(new RegistryClient('127.0.0.1:5000', 'x/y').base).toBe('http://127.0.0.1:5000/v2/x/y');
    expect(new RegistryClient('localhost:5000', 'x/y').base).toBe('http://localhost:5000/v2/x/y');
    expect(new RegistryClient('registry.internal:5000', 'x/y', { plainHttp: true }).base).toBe('http://registry.internal:5000/v2/x/y');
  });
});
