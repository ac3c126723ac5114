import { describe, expect, it } from 'vitest';
import { jsonStringPieces } from './json-pieces.js';

describe('jsonStringPieces', () => {
  it('joins to exactly JSON.stringify of the text, small or large, whatever falls where it is cut', () => {
    // Surrogate pairs, a lone surrogate, quotes, backslashes and control characters at every offset.
    const unit = 'ab"\\é😀\n\t\u0001\ud800x\u2028';
    for (const text of ['', 'plain', unit, unit.repeat(20_000), `${'x'.repeat(32 * 1024 - 1)}😀${'y'.repeat(70_000)}`]) {
      const pieces = [...jsonStringPieces(text)];
      expect(pieces.join('')).toBe(JSON.stringify(text));
      if (text.length > 64 * 1024) expect(pieces.length).toBeGreaterThan(2);
    }
  });
});
