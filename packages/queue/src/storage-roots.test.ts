// Where a worker serves batches from (issue 42): only under its storage roots, never through a link, never
// in a run sandbox's private directory or a run's workspace (where tools write), and only with a signing key
// nobody else may write. Each check on its own; the whole chain from inside a tool against a real worker:
// apps/delta-cli/src/worker-escalation.e2e.test.ts.
import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFileLooseness } from './batch-key.js';
import { storageMismatch, storageRoots } from './storage-roots.js';

afterEach(() => cleanupTempDirs());

/** A directory with a `.batch/queue.key` as `delta batch --queue` makes it. */
function batchAt(out: string): string {
  mkdirSync(join(out, '.batch'), { recursive: true });
  writeFileSync(join(out, '.batch', 'queue.key'), `${'ab'.repeat(32)}\n`, { mode: 0o600 });
  return out;
}

describe("a worker's storage roots", () => {
  it('serves a batch under a root, and refuses one outside every root, or reached through a link', async () => {
    const root = await createTempDir('roots-');
    const [shared] = storageRoots([join(root, '.')]);
    mkdirSync(join(root, 'results'));
    expect(storageMismatch(batchAt(join(root, 'results', 'exp-1')), [shared!])).toBeUndefined();
    const elsewhere = batchAt(join(await createTempDir('elsewhere-'), 'exp'));
    expect(storageMismatch(elsewhere, [shared!])).toMatch(/lies outside this worker's storage roots/);
    symlinkSync(elsewhere, join(root, 'results', 'linked'));
    expect(storageMismatch(join(root, 'results', 'linked'), [shared!])).toMatch(/goes through a symbolic link/);
  });

  it("refuses a batch in a run sandbox's private directory, or in a run's workspace, even under a root", async () => {
    const root = await createTempDir('roots-');
    const roots = storageRoots([root]);
    const privateTmp = batchAt(join(root, 'delta-sandboxes-0', 'delta-sandbox-tmp-4026531836-1-2-abcdef', 'tmp', 'evil'));
    expect(storageMismatch(privateTmp, roots)).toMatch(/in a run sandbox's private directory \(delta-sandboxes-0\)/);
    const underTmp = batchAt(join(root, 'delta-sandbox-tmp-4026531836-1-2-abcdef', 'tmp', 'evil'));
    expect(storageMismatch(underTmp, roots)).toMatch(/private directory \(delta-sandbox-tmp-/);
    const workspace = join(root, 'results', 'exp', 'task-1', 'model', '1');
    mkdirSync(join(workspace, '.delta'), { recursive: true });
    expect(storageMismatch(batchAt(join(workspace, 'made-by-a-tool')), roots)).toMatch(/inside the workspace .*\/1 of a run/);
  });

  it('needs roots that exist, and says how to give them', async () => {
    expect(() => storageRoots([])).toThrow(
      expect.objectContaining({ code: 'USAGE', hint: expect.stringContaining('--root /shared/results') }),
    );
    expect(() => storageRoots(['/nonexistent/delta-root'])).toThrow(/--root \/nonexistent\/delta-root does not exist/);
  });
});

describe("a batch's signing key", () => {
  it("is trusted only as delta batch makes it: this user's, mode 600, in a directory nobody else may write", async () => {
    const out = batchAt(join(await createTempDir('key-'), 'out'));
    expect(keyFileLooseness(out)).toBeUndefined();
    chmodSync(join(out, '.batch', 'queue.key'), 0o644);
    expect(keyFileLooseness(out)).toMatch(/may be read or written by others \(mode 644/);
    chmodSync(join(out, '.batch', 'queue.key'), 0o600);
    chmodSync(join(out, '.batch'), 0o777);
    expect(keyFileLooseness(out)).toMatch(/may be written by others/);
    chmodSync(join(out, '.batch'), 0o755);
    if (process.getuid?.() === 0) {
      chownSync(join(out, '.batch', 'queue.key'), 65534, 65534);
      expect(keyFileLooseness(out)).toMatch(/belongs to uid 65534, not to this worker's user/);
    }
    const linked = batchAt(join(await createTempDir('key-'), 'linked'));
    const real = join(linked, '.batch', 'real.key');
    writeFileSync(real, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
    rmSync(join(linked, '.batch', 'queue.key'));
    symlinkSync(real, join(linked, '.batch', 'queue.key'));
    expect(keyFileLooseness(linked)).toMatch(/is not a regular file/);
  });
});
