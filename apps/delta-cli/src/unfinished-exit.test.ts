import { afterEach, describe, expect, it } from 'vitest';
import { failIfEndedUnfinished } from './unfinished-exit.js';

// The event 'beforeExit' is what Node emits when the event loop has emptied; emitting it here is that moment.
describe('failIfEndedUnfinished', () => {
  const exitCode = process.exitCode;
  afterEach(() => {
    process.exitCode = exitCode;
  });

  it('turns an end with the command unfinished into an error and exit code 1', () => {
    const written: string[] = [];
    failIfEndedUnfinished(
      () => 'replay',
      (text) => written.push(text),
    );
    process.emit('beforeExit', 0);
    expect(process.exitCode).toBe(1);
    expect(written.join('')).toContain('Error: delta ended before `delta replay` had finished');
    // Said once, however many times the loop empties again.
    process.emit('beforeExit', 1);
    expect(written).toHaveLength(1);
  });

  it('says nothing once the command has finished', () => {
    const written: string[] = [];
    const finished = failIfEndedUnfinished(
      () => undefined,
      (text) => written.push(text),
    );
    finished();
    process.emit('beforeExit', 0);
    expect(written).toEqual([]);
    expect(process.exitCode).toBe(exitCode);
  });
});
