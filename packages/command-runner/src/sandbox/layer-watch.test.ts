// The layer's measure is hostile input's: a run's tools made every entry of it. Real files in a real temp dir.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTestResources, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { allocatedBytes, LAYER_ENTRY_BYTES, LayerWatch } from './layer-watch.js';

afterEach(cleanupTestResources);

describe("a run's layer, measured", () => {
  it('counts each entry at least its inode, so empty files pass the bound too, and stops walking once past it', async () => {
    const upper = join(await createTempDir('layer-watch-'), 'upper');
    mkdirSync(join(upper, 'many'), { recursive: true });
    for (let index = 0; index < 3000; index += 1) writeFileSync(join(upper, 'many', `f${index}`), '');
    expect(allocatedBytes(upper)).toBeGreaterThanOrEqual(3000 * LAYER_ENTRY_BYTES);
    // Stopped early: past the bound, but far from all of it.
    const stopped = allocatedBytes(upper, 64 * 1024);
    expect(stopped).toBeGreaterThan(64 * 1024);
    expect(stopped).toBeLessThan(3000 * LAYER_ENTRY_BYTES);
    const passed: number[] = [];
    const watch = new LayerWatch(upper, 1024 * 1024, (bytes) => passed.push(bytes));
    expect(watch.check()).toBe(true);
    expect(passed).toHaveLength(1);
  });
});
