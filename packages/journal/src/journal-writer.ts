import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { JournalEvent, type NewJournalEvent } from './events.js';
import { parseJournalText } from './read-journal.js';
import { forgetWrittenLines, rememberWrittenLine } from './written-lines.js';

export interface TornTailRepair {
  /** How many bytes of the cut-off last line were removed from the journal. */
  bytes: number;
  /** Where those bytes were kept, for inspection. */
  savedTo: string;
}

/**
 * Appends events to a journal: one complete JSON object per line, written in a single append, with a
 * `seq` one above the last. Opening an existing journal validates it and repairs a torn last line.
 */
export class JournalWriter {
  /** Opened on the first append and kept (O_APPEND: each line is one write at the end of the file). */
  private descriptor: number | undefined;

  private constructor(
    readonly file: string,
    private lastSequence: number,
    /** Set when `open` found and removed a torn last line; the engine records it in the journal. */
    readonly repair: TornTailRepair | undefined,
  ) {}

  static open(file: string): JournalWriter {
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file)) {
      writeFileSync(file, '');
      return new JournalWriter(file, 0, undefined);
    }
    const text = readFileSync(file, 'utf8');
    const cut = text.lastIndexOf('\n') + 1;
    let repair: TornTailRepair | undefined;
    if (cut < text.length) {
      const torn = text.slice(cut);
      const savedTo = `${file}.torn-${Date.now()}`;
      writeFileSync(savedTo, torn);
      truncateSync(file, Buffer.byteLength(text.slice(0, cut)));
      repair = { bytes: Buffer.byteLength(torn), savedTo };
    }
    const events = parseJournalText(text.slice(0, cut), file);
    return new JournalWriter(file, events.at(-1)?.seq ?? 0, repair);
  }

  get lastSeq(): number {
    return this.lastSequence;
  }

  append(event: NewJournalEvent): JournalEvent {
    const { type, timestamp, ...rest } = event as NewJournalEvent & Record<string, unknown>;
    // The line keeps this key order (seq, type, timestamp, ...), which is the easiest to read with jq or less.
    const record = { seq: this.lastSequence + 1, type, timestamp: timestamp ?? new Date().toISOString(), ...rest };
    const line = JSON.stringify(record);
    // Validated as a reader will read it back from the line: the event returned is exactly that one.
    const full = JournalEvent.parse(JSON.parse(line));
    this.descriptor ??= openSync(this.file, 'a');
    writeSync(this.descriptor, `${line}\n`);
    this.lastSequence = full.seq;
    rememberWrittenLine(this.file, line, full);
    return full;
  }

  /** Closes the file; a later append opens it again. */
  close(): void {
    forgetWrittenLines(this.file);
    if (this.descriptor === undefined) return;
    closeSync(this.descriptor);
    this.descriptor = undefined;
  }
}
