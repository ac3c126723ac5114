import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followJournalEvents, followJournalLines } from './index.js';

const dirs: string[] = [];
function journalFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-follow-'));
  dirs.push(dir);
  return join(dir, 'journal.jsonl');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const message = (seq: number, content: string) =>
  `${JSON.stringify({ seq, type: 'USER_MESSAGE', timestamp: '2026-01-01T00:00:00.000Z', content })}\n`;
const end = (seq: number) =>
  `${JSON.stringify({ seq, type: 'ENGINE_END', timestamp: '2026-01-01T00:00:01.000Z', run_id: 'r1', status: 'COMPLETED', final_iteration: 1 })}\n`;

describe('followJournalEvents', () => {
  it('reads the journal once without follow, even a run that has not ended', async () => {
    const file = journalFile();
    appendFileSync(file, message(1, 'a'));
    const seen: string[] = [];
    await followJournalEvents(file, (event) => seen.push(event.type), { follow: false });
    expect(seen).toEqual(['USER_MESSAGE']);
  });

  it('follows each event once, a line being written only when whole, until ENGINE_END', async () => {
    const file = journalFile();
    appendFileSync(file, message(1, 'a'));
    const seen: string[] = [];
    await followJournalEvents(
      file,
      (event) => {
        seen.push(event.type === 'USER_MESSAGE' ? event.content : event.type);
        // The writer goes on as each event is seen: half a line first, then the rest and the end.
        if (seen.length === 1) appendFileSync(file, message(2, 'b').slice(0, 20));
        if (seen.length === 1) setImmediate(() => appendFileSync(file, message(2, 'b').slice(20) + end(3)));
      },
      { follow: true, pollMs: 5 },
    );
    expect(seen).toEqual(['a', 'b', 'ENGINE_END']);
  });

  it('stops following when its signal aborts', async () => {
    const file = journalFile();
    appendFileSync(file, message(1, 'a'));
    const stop = new AbortController();
    const seen: string[] = [];
    await followJournalEvents(
      file,
      (event) => {
        seen.push(event.type);
        stop.abort();
      },
      { follow: true, signal: stop.signal, pollMs: 5 },
    );
    expect(seen).toEqual(['USER_MESSAGE']);
  });
});

describe('followJournalLines', () => {
  it('copies whole lines as they are written, until the last is ENGINE_END', async () => {
    const file = journalFile();
    const text: string[] = [];
    const whole = message(1, 'a') + message(2, 'b') + end(3);
    appendFileSync(file, whole.slice(0, message(1, 'a').length + 10));
    await followJournalLines(
      file,
      (piece) => {
        text.push(piece);
        if (text.length === 1) appendFileSync(file, whole.slice(message(1, 'a').length + 10));
      },
      { follow: true, pollMs: 5 },
    );
    expect(text).toEqual([message(1, 'a'), message(2, 'b') + end(3)]);
  });

  it('copies nothing of a journal not yet there, and returns at once without follow', async () => {
    const text: string[] = [];
    await followJournalLines(journalFile(), (piece) => text.push(piece), { follow: false });
    expect(text).toEqual([]);
  });
});
