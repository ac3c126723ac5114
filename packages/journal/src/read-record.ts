import { dirname } from 'node:path';
import { SystemError } from '@delta/errors';
import { readUntrustedFile } from '@delta/untrusted-file';

/** The bound of the journal: generous (a long run's journal is large), but a read that ends. */
export const JOURNAL_MAX_BYTES = 1024 * 1024 * 1024;
/** The bound of a small record read back (`metadata.json`, `LATEST`, a lock file). */
export const SMALL_RECORD_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Reads a record the engine wrote under `.delta/`, as hostile input: a sandbox that was ever weaker than
 * promised let a tool replace it with a link to `/dev/zero`, a FIFO or a host file. Only a regular file
 * in the record's own directory, at most `maxBytes`, is read; anything else is refused with an error that
 * names it. A missing file is undefined.
 */
export function readRunRecord(file: string, maxBytes: number): Buffer | undefined {
  const read = readUntrustedFile(file, { allowedRoots: [dirname(file)], maxBytes });
  if (read.kind === 'missing') return undefined;
  if (read.kind === 'file') return read.bytes;
  throw new SystemError(`${read.message}; the engine reads its records only as regular files.`, {
    code: 'RECORD_REFUSED',
    file,
    hint:
      'The engine writes this file itself: restore it from a backup, or remove what replaced it. A tool could have ' +
      'replaced it only through a sandbox weaker than promised (docs/security.md).',
  });
}
