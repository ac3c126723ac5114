import { closeSync, existsSync, fstatSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { diskWrite, makeDirectory, parseJson, SystemError } from '@delta/errors';
import { invocationDirectory } from './io-records.js';
import type { RunPaths } from './layout.js';
import { readRunRecord } from './read-record.js';

/** The bound of a request record read back: a request carries the whole context, so it is generous. */
const REQUEST_RECORD_MAX_BYTES = 512 * 1024 * 1024;

/** The whole request, byte for byte. */
export const REQUEST_FILE = 'request.json';
/** The request as the bytes it shares with an earlier one, plus the rest (docs/control-plane.md). */
export const REQUEST_DELTA_FILE = 'request.delta.json';
export const REQUEST_DELTA_FORMAT = 'delta-engine/request-delta@1';

/** After this many deltas in a row the next request is copied whole, so a reader never walks far. */
export const MAX_DELTA_CHAIN = 100;

/** `request.delta.json`: the first `prefix_bytes` bytes of invocation `base`'s request, then `suffix`. */
export const RequestDelta = z.object({
  format: z.literal(REQUEST_DELTA_FORMAT),
  /** An earlier invocation of the same run: a directory name, never a path. */
  base: z
    .string()
    .min(1)
    .refine((base) => !base.includes('/') && !base.startsWith('.'), 'must name an earlier invocation of the same run'),
  prefix_bytes: z.number().int().nonnegative(),
  suffix: z.string(),
  /** The length of the whole request in bytes, checked when it is rebuilt. */
  bytes: z.number().int().nonnegative(),
});
export type RequestDelta = z.infer<typeof RequestDelta>;

/**
 * The length in bytes of the longest common start of two UTF-8 texts, never ending inside a character
 * of `b`: compared natively, in chunks, then byte by byte.
 */
export function commonPrefixBytes(a: Uint8Array, b: Uint8Array): number {
  const first = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const max = Math.min(a.length, b.length);
  let length = 0;
  for (let chunk = 1 << 16; chunk >= 16; chunk >>= 4) {
    while (length + chunk <= max && first.compare(b, length, length + chunk, length, length + chunk) === 0) length += chunk;
  }
  while (length < max && a[length] === b[length]) length += 1;
  // A continuation byte (10xxxxxx) would start the rest in the middle of a character.
  while (length > 0 && length < b.length && (b[length]! & 0xc0) === 0x80) length -= 1;
  return length;
}

/** The last request a recorder wrote: the next one is stored as what it adds to this one. */
interface LastRequest {
  invocationId: string;
  /** A copy of its bytes (the caller's may change after the call): a view of the recorder's store. */
  body: Buffer;
  /** How many deltas lead from this request back to a whole copy (0 for a whole copy). */
  depth: number;
  /** Its record file, and the bytes written there: a delta is based on it only while the file still holds them. */
  file: string;
  record: Buffer;
}

/**
 * Writes the request records of one run (`io/invocations/<id>/request.json` or `request.delta.json`,
 * see docs/control-plane.md), remembering the last one so that the next can be stored as a delta. The
 * engine process holding the run's lock owns one; its first request is copied whole.
 */
export class InvocationRequestRecorder {
  #last: LastRequest | undefined;
  /** Reused for each request's copy, so a long run does not allocate one per request. */
  #store: Buffer | undefined;

  constructor(readonly paths: RunPaths) {}

  /**
   * Records the exact request body of an invocation, before the call is made: `request.json` with the
   * whole body, or `request.delta.json` with only what is new since the previous request. A delta is
   * written only when the previous record on disk still holds exactly the bytes this recorder wrote
   * (compared byte for byte), when the two requests share at least half of this one, and when the chain
   * of deltas is shorter than MAX_DELTA_CHAIN; otherwise the body is copied whole. `readInvocationRequest`
   * gives back the exact bytes either way. The body is text or its UTF-8 bytes, not kept after the call.
   */
  write(invocationId: string, requestBody: string | Uint8Array): string {
    const body = typeof requestBody === 'string' ? Buffer.from(requestBody, 'utf8') : requestBody;
    const dir = invocationDirectory(this.paths, invocationId);
    const newDirectory = makeDirectory(dir) !== undefined;
    const previous = this.#previous();

    if (previous && previous.invocationId === invocationId && previous.body.equals(body)) return dir;
    let delta: RequestDelta | undefined;
    if (previous && previous.invocationId !== invocationId && previous.depth < MAX_DELTA_CHAIN) {
      const shared = commonPrefixBytes(previous.body, body);
      if (shared * 2 >= body.length) {
        const suffix = Buffer.from(body.buffer, body.byteOffset + shared, body.length - shared).toString('utf8');
        delta = { format: REQUEST_DELTA_FORMAT, base: previous.invocationId, prefix_bytes: shared, suffix, bytes: body.length };
      }
    }
    // Forgotten first: a write that fails leaves no previous request to base a delta on.
    this.#last = undefined;
    const copy = this.#copy(body);
    if (delta) {
      const record = Buffer.from(`${JSON.stringify(delta)}\n`, 'utf8');
      const file = writeRecord(dir, REQUEST_DELTA_FILE, record, newDirectory);
      this.#last = { invocationId, body: copy, depth: previous!.depth + 1, file, record };
    } else {
      const file = writeRecord(dir, REQUEST_FILE, copy, newDirectory);
      this.#last = { invocationId, body: copy, depth: 0, file, record: copy };
    }
    return dir;
  }

  /** The previous request, if its record file still holds exactly the bytes written there. */
  #previous(): LastRequest | undefined {
    const last = this.#last;
    if (!last) return undefined;
    try {
      if (fileHolds(last.file, last.record)) return last;
    } catch {
      // Gone: fall through.
    }
    this.#last = undefined;
    return undefined;
  }

  /**
   * A copy of the body in the reused store, replaced when too small by one half as big again, or a quarter
   * larger than the body: the next request, a little longer, then fits (a store replaced is garbage as
   * large as the body until the next collection, beside the new one).
   */
  #copy(body: Uint8Array): Buffer {
    let store = this.#store;
    if (!store || store.length < body.length) {
      store = Buffer.allocUnsafeSlow(Math.max(Math.ceil(body.length * 1.25), Math.ceil((store?.length ?? 0) * 1.5), 4096));
      this.#store = store;
    }
    store.set(body);
    return store.subarray(0, body.length);
  }
}

/** Whether a file holds exactly these bytes; read a piece at a time, so that a large record is not read whole beside its copy. */
function fileHolds(file: string, bytes: Uint8Array): boolean {
  const descriptor = openSync(file, 'r');
  try {
    if (fstatSync(descriptor).size !== bytes.length) return false;
    const piece = Buffer.allocUnsafe(Math.min(bytes.length, 1024 * 1024));
    for (let offset = 0; offset < bytes.length; ) {
      const read = readSync(descriptor, piece, 0, Math.min(piece.length, bytes.length - offset), offset);
      if (read === 0 || !piece.subarray(0, read).equals(bytes.subarray(offset, offset + read))) return false;
      offset += read;
    }
    return true;
  } finally {
    closeSync(descriptor);
  }
}

function writeRecord(dir: string, name: string, content: Uint8Array, newDirectory: boolean): string {
  const file = join(dir, name);
  diskWrite(file, () => writeFileSync(file, content));
  // A directory holds exactly one of the two forms (a retried call rewrites its record).
  const other = join(dir, name === REQUEST_FILE ? REQUEST_DELTA_FILE : REQUEST_FILE);
  if (!newDirectory && existsSync(other)) rmSync(other, { force: true });
  return file;
}

const recordsHint = 'The io/invocations/ records are written by the engine alone; see docs/control-plane.md for their format.';

function invalid(file: string, problem: string): SystemError {
  return new SystemError(`${file}: ${problem}`, {
    code: 'INVOCATION_REQUEST_INVALID',
    file,
    hint: recordsHint,
  });
}

function readDelta(file: string): RequestDelta {
  return parseJson(readRunRecord(file, REQUEST_RECORD_MAX_BYTES)?.toString('utf8') ?? '', file, {
    schema: RequestDelta,
    code: 'INVOCATION_REQUEST_INVALID',
    hint: recordsHint,
  });
}

/** The exact bytes of an invocation's request, following its deltas back to a whole copy. */
export function readInvocationRequestBytes(paths: RunPaths, invocationId: string): Buffer {
  const chain: { file: string; delta: RequestDelta }[] = [];
  const seen = new Set<string>();
  let id = invocationId;
  let whole: Buffer | undefined;
  while (whole === undefined) {
    if (seen.has(id)) throw invalid(chain.at(-1)!.file, `its chain of bases loops back to invocation ${id}`);
    seen.add(id);
    const dir = invocationDirectory(paths, id);
    const full = join(dir, REQUEST_FILE);
    const deltaFile = join(dir, REQUEST_DELTA_FILE);
    if (existsSync(full)) {
      whole = readRunRecord(full, REQUEST_RECORD_MAX_BYTES) ?? Buffer.alloc(0);
    } else if (existsSync(deltaFile)) {
      const delta = readDelta(deltaFile);
      chain.push({ file: deltaFile, delta });
      id = delta.base;
    } else {
      const referrer = chain.at(-1);
      throw new SystemError(
        referrer
          ? `${referrer.file}: its base invocation ${id} has no request record in ${dir}`
          : `invocation ${id} has no request record in ${dir}`,
        {
          code: 'INVOCATION_REQUEST_MISSING',
          file: referrer?.file ?? dir,
          hint: `Invocation ids are the directory names under ${paths.invocationsDir}.`,
        },
      );
    }
  }
  let bytes = whole;
  for (let index = chain.length - 1; index >= 0; index -= 1) {
    const { file, delta } = chain[index]!;
    if (delta.prefix_bytes > bytes.length) {
      throw invalid(file, `prefix_bytes ${delta.prefix_bytes} is longer than its base's request (${bytes.length} bytes)`);
    }
    bytes = Buffer.concat([bytes.subarray(0, delta.prefix_bytes), Buffer.from(delta.suffix, 'utf8')]);
    if (bytes.length !== delta.bytes)
      throw invalid(file, `the rebuilt request is ${bytes.length} bytes, but the record says ${delta.bytes}`);
  }
  return bytes;
}

/** The exact request body of an invocation (what the model endpoint received), whichever form it was recorded in. */
export function readInvocationRequest(paths: RunPaths, invocationId: string): string {
  return readInvocationRequestBytes(paths, invocationId).toString('utf8');
}
