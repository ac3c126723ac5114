import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Decide, do, record: effects hand their events to the `emit` they are given, and one run writer journals
// them. These read engine-core's own sources, so that a new effect cannot append behind the writer's back.
const SOURCE = import.meta.dirname;
const sources = readdirSync(SOURCE)
  .filter((name) => name.endsWith('.ts') && !/\.test(-support)?\.ts$/.test(name))
  .map((name) => ({ name, text: readFileSync(join(SOURCE, name), 'utf8') }));

describe('the journal of a run', () => {
  it('is appended in two files only: the run writer (run-context.ts) and fork-run.ts, which copies a journal whole', () => {
    const appending = sources.filter(({ text }) => /\.append\(/.test(text)).map(({ name }) => name);
    expect(appending.sort()).toEqual(['fork-run.ts', 'run-context.ts']);
  });

  it('is written only through the run writer: the one `record`, which no other file calls, handed out by driveRun alone', () => {
    const recording = sources.filter(({ text }) => /(^|[^.\w])record\(/m.test(text)).map(({ name }) => name);
    expect(recording).toEqual(['run-context.ts']);
    const handing = sources.filter(({ name, text }) => name !== 'run-context.ts' && /\brunWriter\(/.test(text)).map(({ name }) => name);
    expect(handing).toEqual(['drive-run.ts']);
  });
});
