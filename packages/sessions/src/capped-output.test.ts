import { describe, expect, it } from 'vitest';
import { CappedOutput } from './capped-output.js';

describe('CappedOutput', () => {
  it('returns everything when under the limit', () => {
    const output = new CappedOutput(10);
    output.push(Buffer.from('hello '));
    output.push(Buffer.from('you'));
    expect(output.text()).toBe('hello you');
    expect(output.droppedBytes).toBe(0);
  });

  it('keeps the head and the tail of 10 MB within the limit and says how much was dropped', () => {
    const limit = 1024;
    const output = new CappedOutput(limit);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    output.push(Buffer.from('START'));
    for (let sent = 0; sent < 10 * 1024 * 1024; sent += chunk.length) {
      output.push(chunk);
      expect(output.retainedBytes).toBeLessThanOrEqual(limit);
    }
    output.push(Buffer.from('END'));
    const text = output.text();
    expect(text.startsWith('START')).toBe(true);
    expect(text.endsWith('END')).toBe(true);
    expect(text).toContain(`${10 * 1024 * 1024 + 8 - limit} of ${10 * 1024 * 1024 + 8} bytes dropped`);
  });

  it('handles many small chunks in the tail', () => {
    const output = new CappedOutput(4);
    for (const letter of 'abcdefgh') output.push(Buffer.from(letter));
    expect(output.retainedBytes).toBe(4);
    expect(output.text()).toMatch(/^ab\n\[delta-sessions: output truncated, 4 of 8 bytes dropped.*\]\ngh$/);
  });
});
