// How an image reference is read: a layout or an archive of this machine, or a registry's image, with
// Docker Hub's names as people write them (docker.io/NAME) sent where its API is.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@delta/testkit';
import { describe, expect, it } from 'vitest';
import { parseImageReference } from './image-reference.js';

describe('an image reference', () => {
  it("reads Docker Hub's names as Docker does: registry-1.docker.io, one-part names under library/", () => {
    expect(parseImageReference('docker.io/library/ubuntu:22.04')).toEqual({
      kind: 'registry',
      host: 'registry-1.docker.io',
      repository: 'library/ubuntu',
      tag: '22.04',
    });
    expect(parseImageReference('docker.io/ubuntu')).toEqual({
      kind: 'registry',
      host: 'registry-1.docker.io',
      repository: 'library/ubuntu',
      tag: 'latest',
    });
    expect(parseImageReference('index.docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest')).toMatchObject({
      host: 'registry-1.docker.io',
      repository: 'swebench/sweb.eval.x86_64.django_1776_django-11099',
    });
    // Any other registry is as written.
    expect(parseImageReference('127.0.0.1:5000/task/app:v1')).toEqual({
      kind: 'registry',
      host: '127.0.0.1:5000',
      repository: 'task/app',
      tag: 'v1',
    });
  });

  it('reads a directory or a file of this machine first, with a tag after its last colon', async () => {
    const base = await createTempDir('image-reference-');
    mkdirSync(join(base, 'layout'));
    writeFileSync(join(base, 'image.tar'), '');
    expect(parseImageReference('layout:v1', base)).toEqual({ kind: 'layout', path: join(base, 'layout'), tag: 'v1' });
    expect(parseImageReference('image.tar', base)).toEqual({ kind: 'archive', path: join(base, 'image.tar') });
    // A docker-archive's tag as docker save names it, colons and slashes in it.
    expect(parseImageReference('image.tar:docker.io/library/app:latest', base)).toEqual({
      kind: 'archive',
      path: join(base, 'image.tar'),
      tag: 'docker.io/library/app:latest',
    });
  });

  it("refuses a name that is neither, saying how Docker Hub's images are named", () => {
    expect(() => parseImageReference('ubuntu', '/')).toThrow(
      expect.objectContaining({ code: 'IMAGE_NOT_FOUND', hint: expect.stringContaining('docker.io/library/ubuntu:22.04') }),
    );
  });
});
