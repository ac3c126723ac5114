import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { deepFreeze } from './deep-freeze.js';
import { asDiskFault, diskWrite, makeDirectory } from '@delta/errors';
import { JournalEvent, type NewJournalEvent } from './events.js';
import { parseJournalText } from './read-journal.js';
import { applyEvent, emptyRunState, foldEvents, type RunState } from './run-state.js';
import { JOURNAL_MAX_BYTES, readRunRecord } from './read-record.js';

export interface TornTailRepair {
  /** How many bytes of the cut-off last line are removed from the journal. */
  bytes: number;
  /** Where those bytes are kept, for inspection. */
  savedTo: string;
}

/** A line longer than this (in UTF-16 units) is not parsed back after it is written; see `append`. */
const LONG_LINE = 1024 * 1024;

/**
 * The UTF-8 bytes of a line and its newline: in one buffer, or, for a long line, in pieces of about
 * LONG_LINE characters encoded one after another into `scratch` (each piece is written before the next
 * is made), so that a large line's bytes never take more memory than one piece.
 */
function* lineBytes(line: string, scratch: () => Buffer): Generator<Buffer> {
  if (line.length <= LONG_LINE) {
    const length = Buffer.byteLength(line, 'utf8');
    const bytes = Buffer.allocUnsafe(length + 1);
    bytes.write(line, 0, 'utf8');
    bytes[length] = 0x0a;
    yield bytes;
    return;
  }
  const buffer = scratch();
  let start = 0;
  while (start < line.length) {
    let end = Math.min(start + LONG_LINE, line.length);
    // A piece never ends between the two halves of a surrogate pair.
    const code = line.charCodeAt(end - 1);
    if (end < line.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    let length = buffer.write(line.slice(start, end), 0, 'utf8');
    if (end === line.length) buffer[length++] = 0x0a;
    yield buffer.subarray(0, length);
    start = end;
  }
}

/** A torn last line found by `open`, removed by the first append. */
interface PendingRepair extends TornTailRepair {
  torn: Buffer;
  /** The journal's length without it. */
  keep: number;
}

/**
 * Appends events to a journal: one complete JSON object per line, written in a single append, with a
 * `seq` one above the last. Opening an existing journal validates it and changes nothing; a torn last
 * line it found is removed by the first append (so a caller may still decide not to write at all).
 *
 * The writer owns the run's state: `open` folds the journal once, and each `append` applies the event it
 * wrote. That is the state of the file only while nothing else writes to it, which the run's lock
 * guarantees for the engine holding it.
 */
export class JournalWriter {
  /** Opened on the first append and kept (O_APPEND: each line is one write at the end of the file). */
  private descriptor: number | undefined;
  private pendingRepair: PendingRepair | undefined;
  /** Set when a failed append left part of a line that could not be cut off: nothing may follow it. */
  private tornBy: unknown;
  /** Where a long line is encoded a piece at a time (LONG_LINE characters of at most 3 bytes, and the newline). */
  private scratch: Buffer | undefined;

  private constructor(
    readonly file: string,
    private current: RunState,
    repair: PendingRepair | undefined,
  ) {
    this.pendingRepair = repair;
    this.repair = repair && { bytes: repair.bytes, savedTo: repair.savedTo };
  }

  /** Set when `open` found a torn last line (removed by the first append); the engine records it in the journal. */
  readonly repair: TornTailRepair | undefined;

  static open(file: string): JournalWriter {
    if (!existsSync(file)) {
      makeDirectory(dirname(file));
      try {
        writeFileSync(file, '');
      } catch (error) {
        throw asDiskFault(error, file);
      }
      return new JournalWriter(file, emptyRunState(), undefined);
    }
    const bytes = readRunRecord(file, JOURNAL_MAX_BYTES) ?? Buffer.alloc(0);
    const cut = bytes.lastIndexOf(0x0a) + 1;
    const state = foldEvents(parseJournalText(bytes.toString('utf8', 0, cut), file));
    if (cut === bytes.length) return new JournalWriter(file, state, undefined);
    const torn = bytes.subarray(cut);
    return new JournalWriter(file, state, { bytes: torn.length, savedTo: `${file}.torn-${Date.now()}`, torn, keep: cut });
  }

  /** The run's state: every event in the journal, folded; a new snapshot after each append. */
  get state(): RunState {
    return this.current;
  }

  get lastSeq(): number {
    return this.current.lastSeq;
  }

  /** Appends an event and applies it to `state`; returns it as a reader will read it back (frozen). */
  append(event: NewJournalEvent): JournalEvent {
    const { type, timestamp, ...rest } = event as NewJournalEvent & Record<string, unknown>;
    // The line keeps this key order (seq, type, timestamp, ...), which is the easiest to read with jq or less.
    const record = { seq: this.current.lastSeq + 1, type, timestamp: timestamp ?? new Date().toISOString(), ...rest };
    const line = JSON.stringify(record);
    // Validated as a reader will read it back from the line: the event returned is exactly that one. A long
    // line (a large answer) is not parsed back, so that its text is not held twice: the event as built is
    // validated instead, which is the same for events made of JSON values, as the engine's are.
    const full = deepFreeze(JournalEvent.parse(line.length > LONG_LINE ? record : JSON.parse(line)));
    if (this.pendingRepair) {
      const { savedTo, torn, keep } = this.pendingRepair;
      diskWrite(savedTo, () => writeFileSync(savedTo, torn));
      diskWrite(this.file, () => truncateSync(this.file, keep));
      this.pendingRepair = undefined;
    }
    this.write(line);
    this.current = applyEvent(this.current, full);
    return full;
  }

  /**
   * Appends one line whole, or not at all: a disk that fills up mid-line takes part of it (a short
   * write), and the part is cut off again, so the journal never holds a torn line that a later append
   * would glue to the next event. The error names the journal and the cause (a full disk, a read-only or
   * immutable file).
   */
  private write(line: string): void {
    if (this.tornBy !== undefined) throw this.tornBy;
    let written = 0;
    try {
      this.descriptor ??= openSync(this.file, 'a');
      // A long line (a large answer) is encoded and written a piece at a time, so that its bytes are never
      // held whole beside its text; this engine alone writes the journal, and a failure cuts off what it wrote.
      for (const bytes of lineBytes(line, () => (this.scratch ??= Buffer.allocUnsafeSlow(LONG_LINE * 3 + 1)))) {
        let done = 0;
        while (done < bytes.length) {
          const count = writeSync(this.descriptor, bytes, done);
          done += count;
          written += count;
        }
      }
    } catch (error) {
      const fault = asDiskFault(error, this.file);
      if (written > 0 && !this.cutOff(written)) this.tornBy = fault;
      throw fault;
    }
  }

  /** Removes the last `bytes` bytes (a line's start that a failed append left); cutting needs no new space. */
  private cutOff(bytes: number): boolean {
    try {
      ftruncateSync(this.descriptor!, fstatSync(this.descriptor!).size - bytes);
      return true;
    } catch {
      // Left as a torn last line, which the next engine to open the journal repairs, and says so.
      return false;
    }
  }

  /** Closes the file; a later append opens it again. */
  close(): void {
    if (this.descriptor === undefined) return;
    closeSync(this.descriptor);
    this.descriptor = undefined;
  }
}
