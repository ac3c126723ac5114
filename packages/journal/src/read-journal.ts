import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import type { JournalEvent } from './events.js';
import { JournalCorruptError } from './journal-error.js';
import { checkSequence, parseJournalLine } from './parse-event.js';

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

/**
 * Reads a journal incrementally: each `read()` parses only the lines appended since the last one, and
 * returns exactly what `readJournal(file, { tolerateTornTail: true })` would. If the file shrank or was
 * replaced, it starts again from the beginning.
 */
export class JournalReader {
  private events: JournalEvent[] = [];
  private offset = 0;
  private inode = -1;
  private lineCount = 0;

  constructor(readonly file: string) {}

  read(): readonly JournalEvent[] {
    if (!existsSync(this.file)) {
      this.reset();
      return this.events;
    }
    const stats = statSync(this.file);
    if (stats.ino !== this.inode || stats.size < this.offset) {
      this.reset();
      this.inode = stats.ino;
    }
    if (stats.size === this.offset) return this.events;

    const descriptor = openSync(this.file, 'r');
    try {
      const size = fstatSync(descriptor).size;
      const length = size - this.offset;
      const buffer = Buffer.allocUnsafe(length);
      let read = 0;
      while (read < length) {
        const count = readSync(descriptor, buffer, read, length - read, this.offset + read);
        if (count === 0) break;
        read += count;
      }
      if (this.offset > 0 && !this.endsWithNewline(descriptor)) {
        throw new JournalCorruptError(this.file, this.lineCount, 'the journal was rewritten in place');
      }
      const end = buffer.lastIndexOf(0x0a, read - 1);
      if (end < 0) return this.events;
      const text = buffer.toString('utf8', 0, end);
      let previous = this.events.at(-1)?.seq ?? 0;
      for (const line of text.split('\n')) {
        this.lineCount += 1;
        if (line.trim() === '') throw new JournalCorruptError(this.file, this.lineCount, 'empty line');
        const event = parseJournalLine(line, this.file, this.lineCount);
        checkSequence(previous, event, this.file, this.lineCount);
        previous = event.seq;
        this.events.push(event);
      }
      this.offset += end + 1;
    } finally {
      closeSync(descriptor);
    }
    return this.events;
  }

  private endsWithNewline(descriptor: number): boolean {
    const byte = Buffer.alloc(1);
    readSync(descriptor, byte, 0, 1, this.offset - 1);
    return byte[0] === 0x0a;
  }

  private reset(): void {
    this.events = [];
    this.offset = 0;
    this.lineCount = 0;
    this.inode = -1;
  }
}
