import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  JournalReader,
  JournalWriter,
  JournalCorruptError,
  readJournal,
  acquireRunLock,
  createToolExecutionRecord,
  finishToolExecutionRecord,
  runPaths,
  createRunDirectories,
} from './index.js';

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

  it('repairs a torn last line on open, keeps its bytes, and goes on from the last good seq', () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'a' });
    writer.append({ type: 'USER_MESSAGE', content: 'b' });
    appendFileSync(file, '{"seq":3,"type":"USER_MES');
    expect(() => readJournal(file)).toThrow(/incomplete/);
    expect(readJournal(file, { tolerateTornTail: true })).toHaveLength(2);
    const reopened = JournalWriter.open(file);
    expect(reopened.repair?.bytes).toBe(25);
    expect(readFileSync(reopened.repair!.savedTo, 'utf8')).toBe('{"seq":3,"type":"USER_MES');
    expect(reopened.append({ type: 'USER_MESSAGE', content: 'c' }).seq).toBe(3);
    expect(readJournal(file).map((event) => event.seq)).toEqual([1, 2, 3]);
  });

  it('the incremental reader returns exactly what a fresh read returns, across appends and torn tails', () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    const reader = new JournalReader(file);
    expect(reader.read()).toEqual([]);
    for (let index = 0; index < 50; index += 1) {
      writer.append({ type: 'USER_MESSAGE', content: `message ${index} ✓ ünïcode` });
      if (index % 7 === 0) expect(reader.read()).toEqual(readJournal(file));
    }
    appendFileSync(file, '{"seq":51,"type":"USER_');
    expect(reader.read()).toEqual(readJournal(file, { tolerateTornTail: true }));
    appendFileSync(file, 'MESSAGE","timestamp":"t","content":"z"}\n');
    expect(reader.read()).toEqual(readJournal(file));
    expect(reader.read()).toHaveLength(51);
  });

  it('the incremental reader starts again when the file is replaced or shrinks', () => {
    const dir = temp();
    const file = join(dir, 'journal.jsonl');
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'a' });
    writer.append({ type: 'USER_MESSAGE', content: 'b' });
    const reader = new JournalReader(file);
    expect(reader.read()).toHaveLength(2);
    const other = join(dir, 'other.jsonl');
    JournalWriter.open(other).append({ type: 'USER_MESSAGE', content: 'replaced' });
    renameSync(other, file);
    expect(reader.read()).toEqual(readJournal(file));
    expect(reader.read()[0]).toMatchObject({ content: 'replaced' });
  });
});

describe('journal reader cache', () => {
  const line = (seq: number, content: string) =>
    `${JSON.stringify({ seq, type: 'USER_MESSAGE', timestamp: '2026-01-01T00:00:00.000Z', content })}\n`;
  const fresh = (file: string) => readJournal(file, { tolerateTornTail: true });
  const outcome = (read: () => readonly unknown[]) => {
    try {
      return { events: read() };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };

  it('equals a fresh read after a torn last line is repaired and the run goes on', () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    writer.append({ type: 'USER_MESSAGE', content: 'a' });
    writer.append({ type: 'USER_MESSAGE', content: 'b' });
    const reader = new JournalReader(file);
    expect(reader.read()).toEqual(fresh(file));
    appendFileSync(file, '{"seq":3,"type":"USER_MESSAGE","timestamp":"t","con');
    expect(reader.read()).toEqual(fresh(file));
    // The engine restarts: the writer cuts the torn bytes off and appends a different line 3.
    const resumed = JournalWriter.open(file);
    expect(resumed.repair?.bytes).toBeGreaterThan(0);
    expect(reader.read()).toEqual(fresh(file));
    resumed.append({ type: 'SYSTEM_MESSAGE', level: 'WARN', content: 'repaired a torn line' });
    resumed.append({ type: 'USER_MESSAGE', content: 'c' });
    expect(reader.read()).toEqual(fresh(file));
    expect(reader.read().map((event) => event.type)).toEqual(['USER_MESSAGE', 'USER_MESSAGE', 'SYSTEM_MESSAGE', 'USER_MESSAGE']);
  });

  it("takes the writer's own events only for lines that read back exactly as written", () => {
    const file = join(temp(), 'journal.jsonl');
    const writer = JournalWriter.open(file);
    const written = [
      writer.append({ type: 'USER_MESSAGE', content: 'task ü 🙂' }),
      writer.append({
        type: 'THOUGHT',
        iteration: 1,
        content: null,
        tool_calls: [{ id: 'c1', name: 'step', arguments: '{}' }],
        llm_invocation_ref: 'i1',
      }),
    ];
    const reader = new JournalReader(file);
    const read = reader.read();
    // The writer's events are exactly what the file gives: defaults applied, nothing extra.
    expect(read).toStrictEqual(fresh(file));
    expect(written).toStrictEqual(fresh(file));
    expect(read[1]).toBe(written[1]);
    // A line changed on disk between the write and the read is parsed from the file, not taken.
    writer.append({ type: 'USER_MESSAGE', content: 'written' });
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"content":"written"', '"content":"edited!"'));
    expect(reader.read()).toStrictEqual(fresh(file));
    expect(reader.read().at(-1)).toMatchObject({ content: 'edited!' });
    writer.close();
  });

  it('equals a fresh read after the file is rewritten in place (same inode) with other content', () => {
    const file = join(temp(), 'journal.jsonl');
    writeFileSync(file, line(1, 'a') + line(2, 'b'));
    const reader = new JournalReader(file);
    expect(reader.read()).toHaveLength(2);
    // Same inode, same length, a different last line: the size and the inode alone would not tell.
    writeFileSync(file, line(1, 'a') + line(2, 'x') + line(3, 'c'));
    expect(reader.read()).toEqual(fresh(file));
    expect(reader.read()[1]).toMatchObject({ content: 'x' });
    // A different first line, the same last line and a larger size.
    writeFileSync(file, line(1, 'z') + line(2, 'x') + line(3, 'c') + line(4, 'd'));
    expect(reader.read()).toEqual(fresh(file));
    expect(reader.read()[0]).toMatchObject({ content: 'z' });
  });

  it('equals a fresh read after the file is replaced, truncated, deleted or recreated', () => {
    const dir = temp();
    const file = join(dir, 'journal.jsonl');
    const reader = new JournalReader(file);
    expect(reader.read()).toEqual([]);
    writeFileSync(file, line(1, 'a') + line(2, 'b') + line(3, 'c'));
    expect(reader.read()).toEqual(fresh(file));
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, line(1, 'a') + line(2, 'b') + line(3, 'c') + line(4, 'replaced'));
    renameSync(other, file);
    expect(reader.read()).toEqual(fresh(file));
    writeFileSync(file, line(1, 'a'));
    expect(reader.read()).toEqual(fresh(file));
    rmSync(file);
    expect(reader.read()).toEqual([]);
    writeFileSync(file, line(1, 'new'));
    expect(reader.read()).toEqual(fresh(file));
  });

  it('equals a fresh read through 400 random appends, torn tails, repairs, replacements and rewrites', () => {
    const dir = temp();
    const file = join(dir, 'journal.jsonl');
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const reader = new JournalReader(file);
    let writer = JournalWriter.open(file);
    let torn = false;
    const texts = ['short', 'ünïcödé ✓ 日本語 🙂', 'x'.repeat(5000), 'line\nbreak "quoted"'];
    for (let step = 0; step < 400; step += 1) {
      const action = random();
      const text = `${texts[Math.floor(random() * texts.length)]} ${step}`;
      if (action < 0.6) {
        // The engine never appends after a torn line: a resume repairs it first.
        if (torn) {
          writer = JournalWriter.open(file);
          torn = false;
          expect(outcome(() => reader.read())).toEqual(outcome(() => fresh(file)));
        }
        writer.append({ type: 'USER_MESSAGE', content: text });
      } else if (action < 0.7) {
        appendFileSync(file, line(writer.lastSeq + 1, text).slice(0, 1 + Math.floor(random() * 30)));
        torn = true;
      } else if (action < 0.8) {
        writer = JournalWriter.open(file);
        torn = false;
      } else if (action < 0.87) {
        // Replaced by a journal that shares its start, as a restored backup would.
        const events = readFileSync(file, 'utf8')
          .split('\n')
          .filter((value) => value.startsWith('{') && value.endsWith('}'));
        const kept = events.slice(0, Math.floor(random() * (events.length + 1)));
        const replacement = join(dir, `replacement-${step}.jsonl`);
        writeFileSync(replacement, kept.map((value) => `${value}\n`).join('') + line(kept.length + 1, `replaced ${step}`));
        renameSync(replacement, file);
        writer = JournalWriter.open(file);
        torn = false;
      } else if (action < 0.94) {
        // Rewritten in place, keeping the inode: the same number of lines, one changed.
        const events = fresh(file);
        if (events.length > 0) {
          const changed = Math.floor(random() * events.length);
          writeFileSync(
            file,
            events.map((event, index) => line(event.seq, index === changed ? `rewritten ${step}` : String(event.content ?? ''))).join(''),
          );
          writer = JournalWriter.open(file);
          torn = false;
        }
      } else {
        const events = fresh(file);
        writeFileSync(
          file,
          events
            .slice(0, Math.floor(events.length / 2))
            .map((event) => line(event.seq, String(event.content ?? '')))
            .join(''),
        );
        writer = JournalWriter.open(file);
        torn = false;
      }
      // Both give the same events, or both refuse the file with the same message.
      expect(outcome(() => reader.read())).toEqual(outcome(() => fresh(file)));
    }
  });
});

describe('run lock', () => {
  it('takes over a lock whose pid now belongs to another process (a reused pid)', () => {
    const file = join(temp(), 'engine.lock');
    // This test process is alive, but the lock says its holder started at another time.
    writeFileSync(file, JSON.stringify({ pid: process.pid, start_ticks: '1', since: 'long ago' }));
    const lock = acquireRunLock(file, 'R2');
    expect(JSON.parse(readFileSync(file, 'utf8')).since).not.toBe('long ago');
    lock.release();
  });

  it('refuses a second engine while the first is alive, and takes over a dead one', async () => {
    const file = join(temp(), 'engine.lock');
    const sleeper = spawn('sleep', ['30']);
    await new Promise((resolve) => sleeper.once('spawn', resolve));
    writeFileSync(file, JSON.stringify({ pid: sleeper.pid, since: 'then' }));
    try {
      expect(() => acquireRunLock(file, 'R1')).toThrow(/Run R1 is being written by another engine process \(pid \d+/);
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    const lock = acquireRunLock(file, 'R1');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, start_ticks: expect.stringMatching(/^\d+$/) });
    lock.release();
    expect(existsSync(file)).toBe(false);
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
