import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { JournalEvent } from './events.js';
import { JournalCorruptError } from './journal-error.js';
import { checkSequence, parseJournalLine } from './parse-event.js';
import { takeWrittenLine } from './written-lines.js';

export interface ReadJournalOptions {
  /**
   * A last line without its newline is a write still in progress or a crash mid-write. By default it is
   * an error; with `tolerateTornTail` it is left out (the writer repairs it when the run resumes).
   */
  tolerateTornTail?: boolean;
}

/** Reads a whole journal. A missing file is an empty journal. */
export function readJournal(file: string, options: ReadJournalOptions = {}): JournalEvent[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return parseJournalText(text, file, options);
}

export function parseJournalText(text: string, file: string, options: ReadJournalOptions = {}): JournalEvent[] {
  const events: JournalEvent[] = [];
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  let previous = 0;
  lines.forEach((line, index) => {
    if (line.trim() === '') throw new JournalCorruptError(file, index + 1, 'empty line');
    const event = parseJournalLine(line, file, index + 1);
    checkSequence(previous, event, file, index + 1);
    previous = event.seq;
    events.push(event);
  });
  if (last !== '' && !options.tolerateTornTail) {
    throw new JournalCorruptError(file, lines.length + 1, 'the last line is incomplete (no newline): a write was cut off');
  }
  return events;
}

/** Bytes at each end of what a reader has consumed that it compares with the file before every read. */
const WINDOW_BYTES = 4096;

function readAt(descriptor: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const count = readSync(descriptor, buffer, read, length - read, position + read);
    if (count === 0) break;
    read += count;
  }
  return read === length ? buffer : buffer.subarray(0, read);
}

/**
 * Reads a journal incrementally: each `read()` parses only the lines appended since the last one, and
 * returns exactly what `readJournal(file, { tolerateTornTail: true })` would.
 *
 * A line this process's JournalWriter appended and that reads back byte for byte as written is not
 * parsed again: its event is the writer's, which was validated from that same text.
 *
 * The parsed lines are a cache, checked against the file on every read: the same inode, a size no
 * smaller than what was consumed, and the same bytes in the first and the last 4 KiB of what was
 * consumed (which ends with a newline). When any of these differ (the file was replaced, truncated, or
 * rewritten in place), it reads the file again from the start.
 */
export class JournalReader {
  private events: JournalEvent[] = [];
  private offset = 0;
  private inode = -1;
  private lineCount = 0;
  private head: Buffer = Buffer.alloc(0);
  private tail: Buffer = Buffer.alloc(0);

  constructor(readonly file: string) {}

  read(): readonly JournalEvent[] {
    let descriptor: number;
    try {
      descriptor = openSync(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.reset();
      return this.events;
    }
    try {
      const { size, ino } = fstatSync(descriptor);
      if (!this.matches(descriptor, size, ino)) this.reset();
      this.inode = ino;
      if (size > this.offset) this.consume(descriptor, size);
    } finally {
      closeSync(descriptor);
    }
    return this.events;
  }

  /** Whether what was consumed is still, as far as the checks see, the start of this file. */
  private matches(descriptor: number, size: number, inode: number): boolean {
    if (this.offset === 0) return true;
    if (inode !== this.inode || size < this.offset) return false;
    if (!readAt(descriptor, 0, this.head.length).equals(this.head)) return false;
    return readAt(descriptor, this.offset - this.tail.length, this.tail.length).equals(this.tail);
  }

  private consume(descriptor: number, size: number): void {
    const buffer = readAt(descriptor, this.offset, size - this.offset);
    const end = buffer.lastIndexOf(0x0a);
    if (end < 0) return;
    const text = buffer.toString('utf8', 0, end);
    let previous = this.events.at(-1)?.seq ?? 0;
    const parsed: JournalEvent[] = [];
    let lineCount = this.lineCount;
    for (const line of text.split('\n')) {
      lineCount += 1;
      if (line.trim() === '') throw new JournalCorruptError(this.file, lineCount, 'empty line');
      // A line this process wrote, read back unchanged, already has its event.
      const event = takeWrittenLine(this.file, line) ?? parseJournalLine(line, this.file, lineCount);
      checkSequence(previous, event, this.file, lineCount);
      previous = event.seq;
      parsed.push(event);
    }
    // Only whole, valid lines change the state, so a read that throws leaves it as it was.
    for (const event of parsed) this.events.push(event);
    this.lineCount = lineCount;
    const consumed = buffer.subarray(0, end + 1);
    if (this.head.length < WINDOW_BYTES) {
      this.head = Buffer.concat([this.head, consumed.subarray(0, WINDOW_BYTES - this.head.length)]);
    }
    this.tail = Buffer.concat([this.tail, consumed.subarray(Math.max(0, consumed.length - WINDOW_BYTES))]);
    if (this.tail.length > WINDOW_BYTES) this.tail = Buffer.from(this.tail.subarray(this.tail.length - WINDOW_BYTES));
    this.offset += end + 1;
  }

  private reset(): void {
    // A new array: callers holding the old one keep what they were given.
    this.events = [];
    this.offset = 0;
    this.lineCount = 0;
    this.inode = -1;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
  }
}
