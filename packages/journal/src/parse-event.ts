import { deepFreeze } from './deep-freeze.js';
import { JournalEvent } from './events.js';
import { JournalCorruptError } from './journal-error.js';

/** Parses one journal line into a typed event (frozen), or throws an error that names the file and line. */
export function parseJournalLine(text: string, file: string, line: number): JournalEvent {
  let value: unknown;
  // Not safeParseJson: a bad line is JOURNAL_CORRUPT naming the file and the line, which the helper cannot.
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JournalCorruptError(file, line, `not valid JSON (${(error as Error).message})`, error);
  }
  const result = JournalEvent.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at field "${issue.path.join('.')}"` : '';
    throw new JournalCorruptError(file, line, `not a valid journal event${where}: ${issue?.message ?? 'unknown problem'}`);
  }
  return deepFreeze(result.data);
}

export function checkSequence(previous: number, event: JournalEvent, file: string, line: number): void {
  if (event.seq <= previous) {
    throw new JournalCorruptError(file, line, `seq ${event.seq} does not follow seq ${previous}; seq must increase strictly`);
  }
}
