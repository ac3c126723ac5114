import { SystemError } from '@delta/errors';

/** A journal line that is not one complete, valid event, or a broken `seq` order. */
export class JournalCorruptError extends SystemError {
  readonly line: number;

  constructor(file: string, line: number, problem: string, cause?: unknown) {
    super(`${file} line ${line}: ${problem}`, {
      code: 'JOURNAL_CORRUPT',
      file,
      cause,
      hint:
        'The journal is append-only and written by the engine alone. Restore the line from a backup, or ' +
        'inspect it with `sed -n <line>p journal.jsonl`; do not edit the file with editors that rewrite JSONL.',
    });
    this.line = line;
  }
}
