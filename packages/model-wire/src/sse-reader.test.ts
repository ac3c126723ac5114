import { describe, expect, it } from 'vitest';
import { SseReader } from './sse-reader.js';

function read(chunks: string[]): Array<{ event: string | undefined; data: string }> {
  const reader = new SseReader();
  const events = chunks.flatMap((chunk) => reader.push(Buffer.from(chunk, 'utf8')));
  return [...events, ...reader.end()];
}

describe('SseReader', () => {
  it('reads data events, skips comments and joins multi-line data', () => {
    expect(
      read([': OPENROUTER PROCESSING\n\ndata: {"a":1}\n\n: keep-alive\n\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n']),
    ).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: undefined, data: 'line one\nline two' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  it('accepts CRLF and CR line ends, split anywhere between chunks', () => {
    const text = 'event: error\r\ndata: {"x":"y"}\r\n\r\ndata:no-space\r\rdata: last';
    const whole = read([text]);
    expect(whole).toEqual([
      { event: 'error', data: '{"x":"y"}' },
      { event: undefined, data: 'no-space' },
      { event: undefined, data: 'last' },
    ]);
    for (let cut = 1; cut < text.length; cut += 1) expect(read([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
  });

  it('keeps a character split between two chunks whole', () => {
    const bytes = Buffer.from('data: héllo ✓\n\n', 'utf8');
    const reader = new SseReader();
    const events = [
      ...reader.push(bytes.subarray(0, 9)),
      ...reader.push(bytes.subarray(9, 17)),
      ...reader.push(bytes.subarray(17)),
      ...reader.end(),
    ];
    expect(events).toEqual([{ event: undefined, data: 'héllo ✓' }]);
  });

  it('reads one long line sent in many small chunks', () => {
    const payload = 'x'.repeat(200_000);
    const text = `data: {"p":"${payload}"}\n\n`;
    const chunks: string[] = [];
    for (let start = 0; start < text.length; start += 1000) chunks.push(text.slice(start, start + 1000));
    expect(read(chunks)).toEqual([{ event: undefined, data: `{"p":"${payload}"}` }]);
  });
});
