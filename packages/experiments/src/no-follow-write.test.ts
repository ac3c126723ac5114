import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareWorkspace } from './prepare-workspace.js';

afterEach(() => cleanupTempDirs());

// The load-time check refuses a `files:` path through a link of the task's workspace directory; these are
// the links that appear later (a workspace prepared before, a tool): the write itself never follows one.
describe('prepareWorkspace', () => {
  it('never writes a task file through a symlink already in the run workspace, at any component', async () => {
    const root = await createTempDir();
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'kept.txt'), 'kept');
    const workDir = join(root, 'work');
    mkdirSync(join(workDir, 'deep'), { recursive: true });
    symlinkSync(outside, join(workDir, 'sub'));
    symlinkSync(outside, join(workDir, 'deep', 'dir'));
    symlinkSync(join(outside, 'kept.txt'), join(workDir, 'file.txt'));
    for (const path of ['sub/x', 'deep/dir/x', 'file.txt']) {
      expect(() => prepareWorkspace(workDir, { id: 't', message: 'm', files: { [path]: 'pwned' } }), path).toThrow(
        expect.objectContaining({ code: 'DATASET_INVALID', message: expect.stringContaining('is a symbolic link') }),
      );
    }
    expect(existsSync(join(outside, 'x'))).toBe(false);
    expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('kept');
  });

  it('copies a workspace directory with its links as links (not followed), then writes files beside them', async () => {
    const root = await createTempDir();
    const source = join(root, 'source');
    mkdirSync(join(source, 'a', '.delta'), { recursive: true });
    writeFileSync(join(source, 'a', 'one.txt'), 'one');
    writeFileSync(join(source, 'a', '.delta', 'LATEST'), 'run-1');
    symlinkSync('/nonexistent/target', join(source, 'dangling'));
    const workDir = join(root, 'work');
    prepareWorkspace(workDir, { id: 't', message: 'm', workspace: source, files: { 'a/two.txt': 'two' } });
    expect(readFileSync(join(workDir, 'a', 'one.txt'), 'utf8')).toBe('one');
    expect(readFileSync(join(workDir, 'a', 'two.txt'), 'utf8')).toBe('two');
    expect(readlinkSync(join(workDir, 'dangling'))).toBe('/nonexistent/target');
    expect(existsSync(join(workDir, 'a', '.delta'))).toBe(false);
    // Prepared again (a run that never started): the same result, no error over the link already there.
    prepareWorkspace(workDir, { id: 't', message: 'm', workspace: source, files: { 'a/two.txt': 'two' } });
    expect(readlinkSync(join(workDir, 'dangling'))).toBe('/nonexistent/target');
  });
});
