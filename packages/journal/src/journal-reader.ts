import { JOURNAL_MAX_BYTES, readRunRecord } from './read-record.js';
import { parseJournalLines } from './read-journal.js';
import { emptyRunState, foldEvents, type RunState } from './run-state.js';

function readBytes(file: string): Buffer | undefined {
  return readRunRecord(file, JOURNAL_MAX_BYTES);
}

/**
 * Follows a journal another process may be writing (`delta log -f`): each `read()` gives the state of its
 * complete lines, exactly `foldEvents(readJournal(file, { tolerateTornTail: true }))`.
 *
 * It parses and folds only the lines appended since the last read. It keeps the bytes it has consumed,
 * and on every read compares them with the start of the file (natively, all of them): when they differ
 * in any byte (the file was replaced, truncated, repaired or edited anywhere, at any length) it folds
 * the file again from the start. Equal bytes are equal lines, so what it kept is exactly what a fresh
 * read would give.
 */
export class JournalReader {
  #state: RunState = emptyRunState();
  /** The complete lines `#state` was folded from, byte for byte. */
  #consumed: Buffer = Buffer.alloc(0);

  constructor(readonly file: string) {}

  /** The state of the journal's complete lines; a bad line throws JournalCorruptError (the next read tries again). */
  read(): RunState {
    const bytes = readBytes(this.file) ?? Buffer.alloc(0);
    const kept = this.#consumed.length;
    if (bytes.length < kept || bytes.compare(this.#consumed, 0, kept, 0, kept) !== 0) {
      this.#state = emptyRunState();
      this.#consumed = Buffer.alloc(0);
    }
    const end = bytes.lastIndexOf(0x0a) + 1;
    const start = this.#consumed.length;
    if (end > start) {
      const text = bytes.toString('utf8', start, end);
      // Only whole, valid lines change the state, so a read that throws leaves it as it was.
      const events = parseJournalLines(text, this.file, { line: this.#state.version + 1, seq: this.#state.lastSeq });
      this.#state = foldEvents(events, this.#state);
      this.#consumed = bytes.subarray(0, end);
    }
    return this.#state;
  }
}
