import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { HumanInputRequest } from '@delta/engine';
import { TerminalAsker } from './terminal-asker.js';

const question = (prompt: string, fields: Partial<HumanInputRequest> = {}) =>
  ({ prompt, input_type: 'text', sensitive: false, ...fields }) as HumanInputRequest;

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk) => {
    shown += String(chunk);
  });
  return { input, output, shown: () => shown };
}

describe('TerminalAsker', () => {
  it('takes answers piped on its input one line each, in order, and shows each prompt', async () => {
    const { input, output, shown } = streams();
    const asker = new TerminalAsker({ input, output });
    input.write('blue\nyes\n');
    const signal = new AbortController().signal;
    try {
      expect(await asker.ask(question('Colour?'), signal)).toBe('blue');
      expect(await asker.ask(question('Sure?', { input_type: 'confirmation' }), signal)).toBe('yes');
    } finally {
      asker.close();
    }
    expect(shown()).toContain('\n? Colour?\n> ');
    expect(shown()).toContain('\n? Sure? [yes/no]\n> ');
  });

  it('says when a sensitive answer is hidden, and fails when the input ends before an answer', async () => {
    const { input, output, shown } = streams();
    const asker = new TerminalAsker({ input, output });
    input.end();
    await expect(asker.ask(question('Token?', { sensitive: true }), new AbortController().signal)).rejects.toThrow(
      'stdin ended before the question was answered',
    );
    asker.close();
    expect(shown()).toContain('? Token? (input hidden)\n> ');
  });

  it('stops waiting when the run is interrupted', async () => {
    const { input, output } = streams();
    const asker = new TerminalAsker({ input, output });
    const stop = new AbortController();
    const answer = asker.ask(question('Colour?'), stop.signal);
    stop.abort();
    await expect(answer).rejects.toThrow('interrupted');
    asker.close();
  });
});
