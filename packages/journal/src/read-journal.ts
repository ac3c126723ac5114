import { JOURNAL_MAX_BYTES, readRunRecord } from './read-record.js';
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
  const bytes = readRunRecord(file, JOURNAL_MAX_BYTES);
  if (bytes === undefined) return [];
  const text = bytes.toString('utf8');
  return parseJournalText(text, file, options);
}

export function parseJournalText(text: string, file: string, options: ReadJournalOptions = {}): JournalEvent[] {
  const cut = text.lastIndexOf('\n') + 1;
  const events = parseJournalLines(text.slice(0, cut), file, { line: 1, seq: 0 });
  if (cut < text.length && !options.tolerateTornTail) {
    throw new JournalCorruptError(file, events.length + 1, 'the last line is incomplete (no newline): a write was cut off');
  }
  return events;
}

/**
 * Parses whole journal lines (`text` is empty or ends with a newline) that follow `after`: the number of
 * the first line and the seq the first event must exceed.
 */
export function parseJournalLines(text: string, file: string, after: { line: number; seq: number }): JournalEvent[] {
  const events: JournalEvent[] = [];
  if (text === '') return events;
  let previous = after.seq;
  let line = after.line;
  for (const content of text.slice(0, -1).split('\n')) {
    if (content.trim() === '') throw new JournalCorruptError(file, line, 'empty line');
    const event = parseJournalLine(content, file, line);
    checkSequence(previous, event, file, line);
    previous = event.seq;
    events.push(event);
    line += 1;
  }
  return events;
}
