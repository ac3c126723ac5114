import type { JournalEvent } from './events.js';

/** At most this many lines per journal wait to be read before the oldest are forgotten. */
const MAX_WAITING = 1024;

/**
 * Lines this process appended to each journal, with the event each one parses to, until a reader of the
 * same file meets them. A JournalReader that reads back a line byte for byte equal to one written here
 * takes its event instead of parsing and validating it again: the same text gives the same event, so what
 * the reader returns is still exactly what a fresh read of the file gives.
 */
const waiting = new Map<string, Map<string, JournalEvent>>();

export function rememberWrittenLine(file: string, line: string, event: JournalEvent): void {
  let lines = waiting.get(file);
  if (!lines) {
    lines = new Map();
    waiting.set(file, lines);
  }
  lines.set(line, event);
  if (lines.size > MAX_WAITING) lines.delete(lines.keys().next().value!);
}

/** The event of a line this process wrote to `file`, if it has not been read yet; it is read only once. */
export function takeWrittenLine(file: string, line: string): JournalEvent | undefined {
  const lines = waiting.get(file);
  const event = lines?.get(line);
  if (event !== undefined) lines!.delete(line);
  return event;
}

/** Forgets the lines waiting for `file` (its writer closed it). */
export function forgetWrittenLines(file: string): void {
  waiting.delete(file);
}
