// Runs of a batch, and batches in other processes, share one unpacked root: two processes unpacking the
// same image at once both get it, and the cache holds it once (the first rename wins, the other's staging
// is removed). Through the built package, as another program would use it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { processStartTicks } from '@delta/process-identity';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from './image.test-support.js';

afterEach(() => cleanupTempDirs());

const dist = join(import.meta.dirname, '..', 'dist', 'index.js');

function unpackInAnotherProcess(layout: string, cacheDir: string): Promise<{ code: number | null; output: string }> {
  const script = `const { resolveImage, unpackImage } = await import(${JSON.stringify(dist)});
    const image = await resolveImage(${JSON.stringify(layout)}, { cacheDir: ${JSON.stringify(cacheDir)} });
    const unpacked = await unpackImage(image, { cacheDir: ${JSON.stringify(cacheDir)} });
    console.log(JSON.stringify({ root: unpacked.root }));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe.skipIf(imageToolsMissing !== undefined)('one image unpacked by two processes at once', () => {
  it('gives both the same root, held once in the cache, with no staging left', async () => {
    if (!existsSync(dist)) throw new Error('build @delta/images first (pnpm build)');
    const base = await createTempDir('images-concurrent-');
    const layout = buildImage(join(base, 'layout'), 'v1', () => undefined);
    const cacheDir = join(base, 'cache');
    const [first, second] = await Promise.all([unpackInAnotherProcess(layout, cacheDir), unpackInAnotherProcess(layout, cacheDir)]);
    expect(first.code, first.output).toBe(0);
    expect(second.code, second.output).toBe(0);
    expect(JSON.parse(first.output).root).toBe(JSON.parse(second.output).root);
    expect(readdirSync(join(cacheDir, 'roots'))).toHaveLength(1);
    expect(readdirSync(join(cacheDir, 'staging'))).toEqual([]);
  });

  it("removes what an unpack killed in the middle left (its process gone), never another's in progress", async () => {
    const base = await createTempDir('images-abandoned-');
    const layout = buildImage(join(base, 'layout'), 'v1', () => undefined);
    const cacheDir = join(base, 'cache');
    // A process that existed and is gone (this test's child, reaped), and one that lives (this test).
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    const left = join(cacheDir, 'staging', `${gone}-12345-abcdef`);
    const live = join(cacheDir, 'staging', `${process.pid}-${processStartTicks(process.pid)}-fedcba`);
    for (const dir of [left, live]) mkdirSync(join(dir, 'rootfs'), { recursive: true });
    const { resolveImage, unpackImage } = await import('./index.js');
    await unpackImage(await resolveImage(layout, { cacheDir }), { cacheDir });
    expect(existsSync(left)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});
