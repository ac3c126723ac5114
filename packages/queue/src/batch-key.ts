import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeDirectory, SystemError } from '@delta/errors';
import type { RunJobData } from './run-job.js';
import { writeFileOnce } from './write-once.js';

/**
 * `OUT/.batch/queue.key`: the batch's signing key. Written by the first `delta batch --queue` and read by
 * workers from the shared storage; never sent to Redis, so whoever can write to Redis (and nothing more)
 * cannot make a job that a worker will run.
 */
export function batchKeyFile(out: string): string {
  return join(out, '.batch', 'queue.key');
}

const KEY_BYTES = 32;

/** A key file the batch's command did not write as it is: never trusted, never used. */
function keyRefused(file: string, problem: string): SystemError {
  return new SystemError(`The batch's signing key ${file} ${problem}; it is not read.`, {
    code: 'RECORD_REFUSED',
    file,
    hint: "Remove it and run the batch's `delta batch --queue` command again: it writes a new key (jobs already queued are then refused).",
  });
}

/** The key as stored: 64 hex digits and a newline. */
function readKeyFile(file: string): Buffer | undefined {
  let descriptor: number;
  try {
    // Never through a link, never a FIFO or a device: a key file is a small regular file or it is none.
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(descriptor);
    if (!stat.isFile() || stat.size > 256) throw keyRefused(file, 'is not a key file (a small regular file)');
    const buffer = Buffer.alloc(256);
    const text = buffer
      .subarray(0, readSync(descriptor, buffer, 0, 256, 0))
      .toString('utf8')
      .trim();
    if (!/^[0-9a-f]{64}$/.test(text)) throw keyRefused(file, 'does not hold a key (64 hex digits)');
    return Buffer.from(text, 'hex');
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Why the batch's key file is not one this worker may trust, or undefined: it must be a regular file of this
 * worker's user that nobody else may read or write, in a `.batch` directory nobody else may write (what
 * `delta batch --queue` makes). Where the batch lies (storage-roots.ts) keeps it out of a tool's reach.
 */
export function keyFileLooseness(out: string): string | undefined {
  const file = batchKeyFile(out);
  const owner = process.geteuid?.();
  try {
    const key = lstatSync(file);
    const directory = lstatSync(dirname(file));
    if (!key.isFile()) return `its signing key ${file} is not a regular file`;
    if (owner !== undefined && key.uid !== owner)
      return `its signing key ${file} belongs to uid ${key.uid}, not to this worker's user (uid ${owner})`;
    if ((key.mode & 0o077) !== 0)
      return `its signing key ${file} may be read or written by others (mode ${(key.mode & 0o777).toString(8)}; delta batch makes it 600)`;
    if (!directory.isDirectory() || (directory.mode & 0o022) !== 0)
      return `the directory of its signing key, ${dirname(file)}, may be written by others`;
  } catch {
    return `its signing key ${file} cannot be read`;
  }
  return undefined;
}

/** The batch's signing key, or undefined when the batch has none (enqueued by a version before keys). */
export function readBatchKey(out: string): Buffer | undefined {
  return readKeyFile(batchKeyFile(out));
}

/** The batch's signing key, created (readable by its owner only, linked into place whole) if it has none. */
export function claimBatchKey(out: string): Buffer {
  const file = batchKeyFile(out);
  const found = readKeyFile(file);
  if (found) return found;
  makeDirectory(join(out, '.batch'));
  writeFileOnce(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`, 0o600);
  return readKeyFile(file)!;
}

type SignedFields = Omit<RunJobData, 'signature'>;

/** HMAC-SHA256 over every field a worker acts on, in a fixed order. */
export function signRunJob(key: Buffer, data: SignedFields): string {
  // max_attempts only when given: jobs signed before it existed still verify.
  const fields = [
    data.out,
    data.batch_id,
    data.task,
    data.model,
    data.repeat,
    data.retry_failed,
    ...(data.max_attempts === undefined ? [] : [data.max_attempts]),
  ];
  return createHmac('sha256', key).update(JSON.stringify(fields)).digest('hex');
}

export function signatureMatches(key: Buffer, data: RunJobData): boolean {
  if (data.signature === undefined) return false;
  const expected = Buffer.from(signRunJob(key, data), 'hex');
  const given = Buffer.from(data.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
