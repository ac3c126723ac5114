import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  JournalWriter,
  readJournal,
  createToolExecutionRecord,
  finishToolExecutionRecord,
  runPaths,
  createRunDirectories,
} from './index.js';
import { JournalCorruptError } from './journal-error.js';

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-journal-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('journal', () => {
  it('appends one complete line per event with seq 1..n and reads them back typed', () => {
    const file = join(temp(), 'run', 'journal.jsonl');
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'hello' });
    writer.append({
      type: 'THOUGHT',
      iteration: 1,
      content: null,
      tool_calls: [{ id: 'call_1', name: 'ls', arguments: '{}' }],
      llm_invocation_ref: 'inv',
    });
    writer.append({ type: 'SYSTEM_MESSAGE', level: 'WARN', content: 'x' });
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(JSON.parse(lines[0]!)).toMatchObject({ seq: 1, type: 'USER_MESSAGE', content: 'hello' });
    expect(Object.keys(JSON.parse(lines[1]!)).slice(0, 3)).toEqual(['seq', 'type', 'timestamp']);
    const events = readJournal(file);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(events[1]?.type === 'THOUGHT' && events[1].tool_calls[0]?.name).toBe('ls');
  });

  it('writes a line of several MiB whole, with characters of every width across its pieces, and returns the event it wrote', () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    // Emoji (surrogate pairs), accents and quotes at every offset, so that some fall where the line is cut.
    const content = 'ab"é😀\n'.repeat(700_000);
    const written = writer.append({ type: 'THOUGHT', iteration: 1, content, tool_calls: [], llm_invocation_ref: 'inv' });
    writer.append({ type: 'USER_MESSAGE', content: 'after' });
    expect(written).toMatchObject({ seq: 1, type: 'THOUGHT', content });
    const events = readJournal(file);
    expect(events[0]).toEqual(written);
    expect(events[1]).toMatchObject({ seq: 2, content: 'after' });
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
  });

  it('refuses an invalid event before writing it', () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    // A THOUGHT needs an iteration.
    expect(() => writer.append({ type: 'THOUGHT', content: 'x', llm_invocation_ref: 'i' } as never)).toThrow();
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('names the file and line of a corrupt line', () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'a' });
    appendFileSync(file, '{"seq":2,"type":"NOPE","timestamp":"t"}\n');
    expect(() => readJournal(file)).toThrow(JournalCorruptError);
    expect(() => readJournal(file)).toThrow(/journal\.jsonl line 2: not a valid journal event/);
    writeFileSync(file, '{"seq":1,"type":"USER_MESSAGE","timestamp":"t","content":"a"}\n{oops\n');
    expect(() => readJournal(file)).toThrow(/line 2: not valid JSON/);
  });

  it('refuses a seq that does not increase', () => {
    const file = join(temp(), 'journal.jsonl');
    const line = (seq: number) => `${JSON.stringify({ seq, type: 'USER_MESSAGE', timestamp: 't', content: 'a' })}\n`;
    writeFileSync(file, line(1) + line(1));
    expect(() => readJournal(file)).toThrow(/seq 1 does not follow seq 1/);
  });

  it('finds a torn last line on open, removes it (keeping its bytes) on the first append, and goes on from the last good seq', () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'a' });
    writer.append({ type: 'USER_MESSAGE', content: 'b' });
    appendFileSync(file, '{"seq":3,"type":"USER_MES\xc3');
    expect(() => readJournal(file)).toThrow(/incomplete/);
    expect(readJournal(file, { tolerateTornTail: true })).toHaveLength(2);
    const before = readFileSync(file);
    const reopened = JournalWriter.open(file);
    expect(reopened.repair?.bytes).toBe(27);
    expect(reopened.state.version).toBe(2);
    // Opening changes nothing: a caller that decides not to write leaves the file as it was.
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(reopened.repair!.savedTo)).toBe(false);
    expect(reopened.append({ type: 'USER_MESSAGE', content: 'c' }).seq).toBe(3);
    expect(readFileSync(reopened.repair!.savedTo).equals(before.subarray(before.lastIndexOf(0x0a) + 1))).toBe(true);
    expect(readJournal(file).map((event) => event.seq)).toEqual([1, 2, 3]);
  });
});

describe('io records', () => {
  it('never overwrites the record of a reused action id', () => {
    const paths = runPaths(temp(), '20260101_000000_abcdef');
    createRunDirectories(paths);
    const first = createToolExecutionRecord(paths, 'call_1', 'echo a');
    finishToolExecutionRecord(first, 0, 12.4);
    const second = createToolExecutionRecord(paths, 'call_1', 'echo b');
    const odd = createToolExecutionRecord(paths, '../../etc', 'x');
    expect([first.ref, second.ref, odd.ref]).toEqual(['call_1', 'call_1-2', '.._.._etc']);
    expect(readFileSync(first.command, 'utf8')).toBe('echo a\n');
    expect(readFileSync(first.exitCode, 'utf8')).toBe('0\n');
    expect(readFileSync(first.duration, 'utf8')).toBe('12\n');
    expect(readdirSync(paths.toolExecutionsDir).sort()).toEqual(['.._.._etc', 'call_1', 'call_1-2']);
    expect(readFileSync(join(paths.controlDir, 'VERSION'), 'utf8')).toBe('1.3\n');
  });
});
