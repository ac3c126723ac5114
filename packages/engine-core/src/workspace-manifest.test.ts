import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { compareManifests, MANIFEST_MAX_ENTRIES, workspaceManifest } from './workspace-manifest.js';

afterEach(cleanupTempDirs);

describe('workspaceManifest', () => {
  it('lists files with size and sha256, links with their target, directories; never .delta/', async () => {
    const work = await createTempDir('manifest-');
    mkdirSync(join(work, 'sub'));
    mkdirSync(join(work, '.delta', 'run'), { recursive: true });
    writeFileSync(join(work, 'sub', 'a.txt'), 'abc');
    writeFileSync(join(work, '.delta', 'run', 'journal.jsonl'), '{}\n');
    symlinkSync('sub/a.txt', join(work, 'link'));
    expect(workspaceManifest(work)).toEqual({
      entries: [
        { path: 'link', type: 'link', target: 'sub/a.txt' },
        { path: 'sub', type: 'dir' },
        // sha256 of "abc"
        { path: 'sub/a.txt', type: 'file', size: 3, sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
      ],
      complete: true,
      omitted: 0,
    });
  });

  it('stops at the entry cap and says how many it left out', async () => {
    const work = await createTempDir('manifest-');
    for (let index = 0; index < MANIFEST_MAX_ENTRIES + 5; index += 1) writeFileSync(join(work, `f${String(index).padStart(5, '0')}`), '');
    const manifest = workspaceManifest(work);
    expect(manifest.entries).toHaveLength(MANIFEST_MAX_ENTRIES);
    expect(manifest).toMatchObject({ complete: false, omitted: 5 });
  });

  it('compares a recorded manifest with a workspace: missing, changed, extra', async () => {
    const work = await createTempDir('manifest-');
    writeFileSync(join(work, 'same'), 'x');
    writeFileSync(join(work, 'changed'), 'old');
    writeFileSync(join(work, 'gone'), 'x');
    const recorded = workspaceManifest(work);
    writeFileSync(join(work, 'changed'), 'new');
    unlinkSync(join(work, 'gone'));
    writeFileSync(join(work, 'extra'), 'x');
    expect(compareManifests(recorded, workspaceManifest(work))).toEqual({
      same: false,
      missing: ['gone'],
      changed: ['changed'],
      extra: ['extra'],
      partial: false,
    });
    expect(compareManifests(recorded, recorded).same).toBe(true);
  });
});
