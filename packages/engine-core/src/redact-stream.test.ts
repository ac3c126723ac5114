import { describe, expect, it } from 'vitest';
import { redactedDeltas } from './redacted-deltas.js';
import type { ModelDelta } from './model-client.js';
import { RedactingStream } from './redact-stream.js';

const KEY = 'sk-test-0123456789';
const TEXT = `a ${KEY} b sk-test-01 not it ${KEY}${KEY} sk-`;
const EXPECTED = 'a [REDACTED] b sk-test-01 not it [REDACTED][REDACTED] sk-';

/** Every way to cut `text` in three pieces. */
function cuts(text: string): string[][] {
  const all: string[][] = [];
  for (let i = 0; i <= text.length; i += 1)
    for (let j = i; j <= text.length; j += 1) all.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  return all;
}

describe('RedactingStream', () => {
  it('takes the key out however the text is cut, and passes on everything else in order', () => {
    for (const pieces of cuts(TEXT)) {
      const out: string[] = [];
      const stream = new RedactingStream<string>(KEY, (piece) => out.push(piece));
      for (const piece of pieces) stream.push(piece);
      stream.end();
      expect(out.join(''), JSON.stringify(pieces)).toBe(EXPECTED);
    }
  });

  it('does the same for bytes (a response.sse), and holds back only what may start the key', () => {
    for (const pieces of cuts(TEXT).filter((_, index) => index % 7 === 0)) {
      const out: Buffer[] = [];
      const stream = new RedactingStream<Buffer>(KEY, (piece) => out.push(piece));
      for (const piece of pieces) stream.push(Buffer.from(piece));
      stream.end();
      expect(Buffer.concat(out).toString(), JSON.stringify(pieces)).toBe(EXPECTED);
    }
    const out: string[] = [];
    const stream = new RedactingStream<string>(KEY, (piece) => out.push(piece));
    stream.push('hello world');
    expect(out).toEqual(['hello world']);
  });

  it('passes everything through untouched without a key, or with one under 8 characters', () => {
    for (const secret of [undefined, 'short']) {
      const out: string[] = [];
      const stream = new RedactingStream<string>(secret, (piece) => out.push(piece));
      stream.push('a short b');
      expect(out).toEqual(['a short b']);
    }
  });

  it('redacts the deltas of a streamed answer for onModelDelta: content, reasoning and arguments each on its own', () => {
    const got: ModelDelta[] = [];
    const deltas = redactedDeltas((delta) => got.push(delta), KEY, 1, 'inv')!;
    const pieces = (text: string) => text.match(/.{1,5}/g) ?? [];
    for (const piece of pieces(`say ${KEY}`)) deltas.push({ type: 'content', text: piece });
    deltas.push({ type: 'tool_call', index: 0, id: 'c1', name: 'echo' });
    for (const piece of pieces(`{"k":"${KEY}"}`)) deltas.push({ type: 'tool_call', index: 0, arguments: piece });
    for (const piece of pieces(`think ${KEY}`)) deltas.push({ type: 'reasoning', text: piece });
    deltas.end();
    const text = (type: string) =>
      got
        .filter((delta) => delta.type === type)
        .map((delta) => ('text' in delta ? delta.text : 'arguments' in delta ? (delta.arguments ?? '') : ''))
        .join('');
    expect(text('content')).toBe('say [REDACTED]');
    expect(text('reasoning')).toBe('think [REDACTED]');
    expect(text('tool_call')).toBe('{"k":"[REDACTED]"}');
    expect(got.find((delta) => delta.type === 'tool_call')).toMatchObject({ id: 'c1', name: 'echo', iteration: 1, invocation_id: 'inv' });
    expect(JSON.stringify(got)).not.toContain(KEY);
  });
});
