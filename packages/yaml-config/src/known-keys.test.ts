import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { knownKeysAt } from './known-keys.js';

const File = z.strictObject({ type: z.literal('file'), path: z.string(), on_missing: z.enum(['skip', 'error']).default('error') });
const Journal = z.strictObject({ type: z.literal('journal'), max_iterations: z.number().optional() });
const Manifest = z.strictObject({
  total_max_tokens: z.number().optional(),
  sources: z.array(z.discriminatedUnion('type', [File, Journal])),
  generator: z.strictObject({ command: z.array(z.string()), timeout_ms: z.number().default(1) }).optional(),
  env: z.record(z.string(), z.strictObject({ value: z.string() })).optional(),
  lazy: z.lazy(() => z.strictObject({ inner: z.string() })).optional(),
});

describe('knownKeysAt', () => {
  it('lists the keys of the object at a path, through arrays, records, wrappers and lazy schemas', () => {
    expect(knownKeysAt(Manifest, {}, [])).toEqual(['total_max_tokens', 'sources', 'generator', 'env', 'lazy']);
    expect(knownKeysAt(Manifest, { generator: {} }, ['generator'])).toEqual(['command', 'timeout_ms']);
    expect(knownKeysAt(Manifest, { env: { A: {} } }, ['env', 'A'])).toEqual(['value']);
    expect(knownKeysAt(Manifest, { lazy: {} }, ['lazy'])).toEqual(['inner']);
  });

  it('picks the member of a discriminated union the data names', () => {
    const data = { sources: [{ type: 'journal' }, { type: 'file' }, { type: 'other' }] };
    expect(knownKeysAt(Manifest, data, ['sources', 0])).toEqual(['type', 'max_iterations']);
    expect(knownKeysAt(Manifest, data, ['sources', 1])).toEqual(['type', 'path', 'on_missing']);
    expect(knownKeysAt(Manifest, data, ['sources', 2])).toEqual(['type', 'path', 'on_missing', 'max_iterations']);
  });

  it('gives nothing where there is no object schema', () => {
    expect(knownKeysAt(Manifest, {}, ['total_max_tokens'])).toEqual([]);
    expect(knownKeysAt(Manifest, {}, ['nowhere', 'deeper'])).toEqual([]);
  });
});
