import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents, JournalReader, JournalWriter, readJournal } from './index.js';

const dirs: string[] = [];
function journalFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-reader-'));
  dirs.push(dir);
  return join(dir, 'journal.jsonl');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const line = (seq: number, content: string) =>
  `${JSON.stringify({ seq, type: 'USER_MESSAGE', timestamp: '2026-01-01T00:00:00.000Z', content })}\n`;
const fresh = (file: string) => readJournal(file, { tolerateTornTail: true });
const eventsOf = (reader: JournalReader) => reader.read().events.toArray();

describe('JournalReader', () => {
  it('gives exactly what a fresh read gives, and its fold, across appends and a torn tail', () => {
    const file = journalFile();
    const writer = JournalWriter.open(file);
    const reader = new JournalReader(file);
    expect(eventsOf(reader)).toEqual([]);
    for (let index = 0; index < 50; index += 1) {
      writer.append({ type: 'USER_MESSAGE', content: `message ${index} ✓ ünïcode` });
      if (index % 7 === 0) expect(eventsOf(reader)).toEqual(readJournal(file));
    }
    appendFileSync(file, '{"seq":51,"type":"USER_');
    expect(eventsOf(reader)).toEqual(fresh(file));
    appendFileSync(file, 'MESSAGE","timestamp":"t","content":"z"}\n');
    expect(eventsOf(reader)).toEqual(readJournal(file));
    expect(reader.read()).toEqual(foldEvents(readJournal(file)));
    expect(reader.read().version).toBe(51);
  });

  it('reads back a same-length edit in the middle of the journal, not the event it read before', () => {
    const file = journalFile();
    writeFileSync(file, Array.from({ length: 200 }, (_, index) => line(index + 1, `event ${String(index).padStart(3, '0')}`)).join(''));
    const reader = new JournalReader(file);
    expect(reader.read().events.at(100)).toMatchObject({ content: 'event 100' });
    const before = readFileSync(file);
    writeFileSync(file, readFileSync(file, 'utf8').replace('event 100', 'EVENT 100'));
    expect(readFileSync(file).length).toBe(before.length);
    expect(reader.read().events.at(100)).toMatchObject({ content: 'EVENT 100' });
    expect(eventsOf(reader)).toEqual(readJournal(file));
  });

  it('never changes a state it gave out: a later append gives a new one', () => {
    const file = journalFile();
    writeFileSync(file, Array.from({ length: 200 }, (_, index) => line(index + 1, `e${index}`)).join(''));
    const reader = new JournalReader(file);
    const given = reader.read();
    const events = given.events.toArray();
    appendFileSync(file, line(201, 'one more'));
    const next = reader.read();
    expect(next.version).toBe(201);
    expect(given.version).toBe(200);
    expect(given.events.length).toBe(200);
    expect(given.events.toArray()).toEqual(events);
    expect(Object.isFrozen(given)).toBe(true);
    expect(Object.isFrozen(given.events.at(0))).toBe(true);
  });

  it('starts again when the file is replaced, truncated, rewritten in place, deleted or recreated', () => {
    const file = journalFile();
    const reader = new JournalReader(file);
    writeFileSync(file, line(1, 'a') + line(2, 'b') + line(3, 'c'));
    expect(eventsOf(reader)).toEqual(fresh(file));
    const other = `${file}.new`;
    writeFileSync(other, line(1, 'a') + line(2, 'b') + line(3, 'c') + line(4, 'replaced'));
    renameSync(other, file);
    expect(eventsOf(reader)).toEqual(fresh(file));
    // Same inode, a different first line, the same last line and a larger size.
    writeFileSync(file, line(1, 'z') + line(2, 'b') + line(3, 'c') + line(4, 'replaced') + line(5, 'd'));
    expect(eventsOf(reader)).toEqual(fresh(file));
    expect(reader.read().events.at(0)).toMatchObject({ content: 'z' });
    writeFileSync(file, line(1, 'a'));
    expect(eventsOf(reader)).toEqual(fresh(file));
    rmSync(file);
    expect(eventsOf(reader)).toEqual([]);
    writeFileSync(file, line(1, 'new'));
    expect(eventsOf(reader)).toEqual(fresh(file));
  });

  it('equals a fresh read after a torn last line is repaired and the run goes on', () => {
    const file = journalFile();
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'a' });
    writer.append({ type: 'USER_MESSAGE', content: 'b' });
    const reader = new JournalReader(file);
    expect(eventsOf(reader)).toEqual(fresh(file));
    appendFileSync(file, '{"seq":3,"type":"USER_MESSAGE","timestamp":"t","con');
    expect(eventsOf(reader)).toEqual(fresh(file));
    const resumed = JournalWriter.open(file);
    expect(resumed.repair?.bytes).toBeGreaterThan(0);
    resumed.append({ type: 'SYSTEM_MESSAGE', level: 'WARN', content: 'repaired a torn line' });
    resumed.append({ type: 'USER_MESSAGE', content: 'c' });
    expect(eventsOf(reader)).toEqual(fresh(file));
    expect(reader.read()).toEqual(resumed.state);
  });

  it('throws what a fresh read throws for a bad line, keeps what it had, and reads on once the line is fixed', () => {
    const file = journalFile();
    writeFileSync(file, line(1, 'a'));
    const reader = new JournalReader(file);
    expect(reader.read().version).toBe(1);
    appendFileSync(file, line(1, 'again'));
    expect(() => reader.read()).toThrow(/journal\.jsonl line 2: seq 1 does not follow seq 1/);
    expect(() => readJournal(file)).toThrow(/journal\.jsonl line 2: seq 1 does not follow seq 1/);
    writeFileSync(file, line(1, 'a') + line(2, 'fixed'));
    expect(eventsOf(reader)).toEqual(readJournal(file));
  });
});
