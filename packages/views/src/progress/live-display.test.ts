import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '@delta/journal';
import { NO_COLORS } from '../inspect/color.js';
import { LiveDisplay } from './live-display.js';

/** A terminal-like stream that keeps what is written, in order. */
function terminal() {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { columns: 100, isTTY: true });
  return { stream, writes, text: () => writes.join('').replaceAll('\r\u001b[2K', '') };
}

const thought = (content: string): JournalEvent =>
  ({
    seq: 3,
    type: 'THOUGHT',
    timestamp: new Date().toISOString(),
    iteration: 1,
    content,
    tool_calls: [],
    llm_invocation_ref: '0001_abcdef',
  }) as JournalEvent;

describe('the live display', () => {
  it('writes a streamed answer as its pieces arrive, and does not write it again when its THOUGHT comes', () => {
    const { stream, writes, text } = terminal();
    const display = new LiveDisplay(stream, NO_COLORS);
    display.onModelDelta({ iteration: 1, invocation_id: '0001_abcdef', type: 'content', text: 'Hel' });
    const afterFirst = writes.length;
    display.onModelDelta({ iteration: 1, invocation_id: '0001_abcdef', type: 'reasoning', text: 'thinking' });
    display.onModelDelta({ iteration: 1, invocation_id: '0001_abcdef', type: 'content', text: 'lo there' });
    // Each piece is on the screen before the next arrives.
    expect(writes.slice(0, afterFirst).join('')).toContain('Hel');
    expect(writes.at(-1)).toBe('lo there');
    display.onEvent(thought('Hello there'));
    display.stop();
    expect(text()).toBe('[1] ● Hello there\n');
  });

  it('writes a THOUGHT that was not streamed as its first line', () => {
    const { stream, text } = terminal();
    const display = new LiveDisplay(stream, NO_COLORS);
    display.onEvent(thought('Plain\nanswer'));
    display.stop();
    expect(text()).toContain('[1] ● Plain answer\n');
  });

  it("shows the control characters of a model's answer, streamed or not, never sends them to the terminal", () => {
    const { stream, text } = terminal();
    const display = new LiveDisplay(stream, NO_COLORS);
    display.onModelDelta({ iteration: 1, invocation_id: '0001_abcdef', type: 'content', text: 'a\u001b[2Jb' });
    display.onEvent(thought('a\u001b[2Jb'));
    display.onEvent(thought('c\u001b]0;title\u0007d'));
    display.stop();
    expect(text()).not.toMatch(/[\u001b\u0007]/);
    expect(text()).toContain('a\\u001b[2Jb');
    expect(text()).toContain('c\\u001b]0;title\\u0007d');
  });
});
