import { describe, expect, it } from 'vitest';
import { MessageLines } from './message-lines.js';

function feed(chunks: string[], maxBytes: number): string[] {
  const lines = new MessageLines(maxBytes);
  const seen: string[] = [];
  for (const chunk of chunks)
    lines.push(
      Buffer.from(chunk),
      (line) => seen.push(line),
      () => seen.push('<oversized>'),
    );
  return seen;
}

describe('MessageLines', () => {
  it('joins a line split across chunks and splits several in one, dropping a CR before the LF', () => {
    expect(feed(['{"a"', ':1}\r\n{"b":2}\n{"c"', ':3}\n'], 100)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('reports a line past the limit once, as soon as it passes it, and skips it to its end', () => {
    expect(feed(['12345', '67890', 'abcdef', 'ghi\nok\n'], 8)).toEqual(['<oversized>', 'ok']);
    expect(feed(['123456789\nok\n'], 8)).toEqual(['<oversized>', 'ok']);
    expect(feed(['12345678\n'], 8)).toEqual(['12345678']);
  });

  it('holds a line that comes a byte at a time in about its own size, not an object per byte', () => {
    const lines = new MessageLines(10 * 1024 * 1024);
    const seen: string[] = [];
    const before = process.memoryUsage().heapUsed;
    // Two million chunks of one byte each, as a pipe gives them when the server writes a byte at a time.
    for (let index = 0; index < 2_000_000; index += 1) {
      lines.push(
        Buffer.allocUnsafeSlow(1).fill(0x78),
        (line) => seen.push(line),
        () => seen.push('<oversized>'),
      );
    }
    const grown = process.memoryUsage().heapUsed - before;
    lines.push(
      Buffer.from('\n'),
      (line) => seen.push(line),
      () => seen.push('<oversized>'),
    );
    expect(seen).toEqual(['x'.repeat(2_000_000)]);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  });
});
