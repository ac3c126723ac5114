import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DeltaError, SystemError } from './delta-error.js';

interface Fault {
  code: 'DISK_FULL' | 'DISK_READ_ONLY' | 'DISK_NOT_PERMITTED';
  cause: string;
  hint: (file: string) => string;
}

/** The operating system's errors that mean "this disk will not take the write", by errno code. */
const FAULTS: Record<string, Fault> = {
  ENOSPC: {
    code: 'DISK_FULL',
    cause: 'no space left on device',
    hint: (file) => `Free some space on the file system that holds ${dirname(file)} (\`df -h ${dirname(file)}\` shows how much is left).`,
  },
  EDQUOT: {
    code: 'DISK_FULL',
    cause: 'no space left in the disk quota',
    hint: (file) => `Free some space under your quota on the file system that holds ${dirname(file)} (\`quota -s\`), or raise the quota.`,
  },
  EROFS: {
    code: 'DISK_READ_ONLY',
    cause: 'read-only file system',
    hint: (file) =>
      `Remount the file system that holds ${dirname(file)} read-write (\`mount -o remount,rw <mount point>\`; \`findmnt -T ${dirname(file)}\` names it).`,
  },
  EPERM: {
    code: 'DISK_NOT_PERMITTED',
    cause: 'operation not permitted',
    hint: (file) =>
      `The file or its directory may be immutable or append-only: \`lsattr -d ${file} ${dirname(file)}\` shows it, and \`chattr -i ${file}\` (as root) removes the immutable attribute.`,
  },
  EACCES: {
    code: 'DISK_NOT_PERMITTED',
    cause: 'permission denied',
    hint: (file) => `Check the owner and mode of ${file} and of its directory (\`ls -ld ${file} ${dirname(file)}\`).`,
  },
};

/**
 * A failed write to a file Delta Engine keeps (the journal, metadata.json, an io/ record, a lock) named
 * as what it is: the file, the cause and its fix. A full disk, a read-only or immutable file is the
 * system's fault, never the model's, and it is fixed where the file lives. Any other error, and an error
 * that is already a DeltaError, is returned as it is.
 *
 * `file` is the file (or directory) that was being written: Node names it only for some calls (open,
 * mkdir), never for a write to an open descriptor.
 */
export function asDiskFault(error: unknown, file: string): unknown {
  if (DeltaError.isInstance(error) || typeof error !== 'object' || error === null) return error;
  const errno = (error as { code?: unknown }).code;
  const fault = typeof errno === 'string' ? FAULTS[errno] : undefined;
  if (!fault) return error;
  return new SystemError(`Cannot write ${file}: ${fault.cause} (${errno}).`, {
    code: fault.code,
    cause: error,
    file,
    hint: fault.hint(file),
  });
}

/** Runs a write to `file` (or a directory to create), turning a disk fault it meets into one that names the file. */
export function diskWrite<T>(file: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw asDiskFault(error, file);
  }
}

/**
 * `mkdir -p` whose failure names its real cause. Node's recursive mkdir reports a read-only file system
 * (EROFS, and other causes it does not expect) as ENOENT; the first missing directory made again alone
 * says what is really wrong. Returns what mkdirSync does: the first directory created, if any.
 */
export function makeDirectory(dir: string): string | undefined {
  try {
    return mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw asDiskFault(realCause(error, dir), dir);
  }
}

function realCause(error: unknown, dir: string): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'ENOENT') return error;
  let missing = dir;
  while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
  try {
    mkdirSync(missing);
  } catch (cause) {
    return cause;
  }
  return error;
}
