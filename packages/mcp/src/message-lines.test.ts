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
});
