import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan, valueNestsDeeperThan } from './index.js';

/** `{"a":{"a":...1...}}` nested `levels` deep, built as text without recursion. */
function nestedText(levels: number): string {
  return `${'{"a":['.repeat(levels / 2)}1${']}'.repeat(levels / 2)}`;
}

describe('valueNestsDeeperThan', () => {
  it('counts a parsed value as nestsDeeperThan counts its text', () => {
    for (const levels of [2, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 2]) {
      const text = nestedText(levels);
      expect(valueNestsDeeperThan(JSON.parse(text), MAX_JSON_DEPTH)).toBe(nestsDeeperThan(text, MAX_JSON_DEPTH));
    }
    expect(valueNestsDeeperThan(JSON.parse(nestedText(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).toBe(false);
    expect(valueNestsDeeperThan(JSON.parse(nestedText(MAX_JSON_DEPTH + 2)), MAX_JSON_DEPTH)).toBe(true);
    expect(valueNestsDeeperThan([[], { a: [] }], 3)).toBe(false);
    expect(valueNestsDeeperThan([[], { a: [] }], 2)).toBe(true);
    expect(nestsDeeperThan('[[],{"a":[]}]', 2)).toBe(true);
    for (const value of ['text', 1, null, undefined, true]) expect(valueNestsDeeperThan(value, 0)).toBe(false);
  });

  it('walks a value nested 200000 levels deep without overflowing the stack', () => {
    const deep = JSON.parse(nestedText(200_000));
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(valueNestsDeeperThan(deep, MAX_JSON_DEPTH)).toBe(true);
  });

  it('counts a cycle as too deep rather than walking it forever', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(valueNestsDeeperThan(cycle, MAX_JSON_DEPTH)).toBe(true);
  });
});
