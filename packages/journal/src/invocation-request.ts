import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SystemError } from '@delta/errors';
import { invocationDirectory } from './io-records.js';
import type { RunPaths } from './layout.js';
import { parseJson } from './json.js';

/** The whole request, byte for byte. */
export const REQUEST_FILE = 'request.json';
/** The request as the bytes it shares with an earlier one, plus the rest (docs/control-plane.md). */
export const REQUEST_DELTA_FILE = 'request.delta.json';
export const REQUEST_DELTA_FORMAT = 'delta-engine/request-delta@1';

/** After this many deltas in a row the next request is copied whole, so a reader never walks far. */
export const MAX_DELTA_CHAIN = 100;

/** `request.delta.json`: the first `prefix_bytes` bytes of invocation `base`'s request, then `suffix`. */
export interface RequestDelta {
  format: typeof REQUEST_DELTA_FORMAT;
  base: string;
  prefix_bytes: number;
  suffix: string;
  /** The length of the whole request in bytes, checked when it is rebuilt. */
  bytes: number;
}

/** The last request written in a run, kept to find what the next one shares with it. */
interface LastRequest {
  invocationId: string;
  /** A copy of its bytes: a view of `store`, a buffer reused by the run's next request (see `remember`). */
  body: Buffer;
  store: Buffer;
  /** How many deltas lead from this request back to a whole copy (0 for a whole copy). */
  depth: number;
  file: string;
  /** The record file as written: the entry is used only while the file is unchanged. */
  ino: number;
  size: number;
  mtimeMs: number;
}

const lastRequests = new Map<string, LastRequest>();
const MAX_CACHED_RUNS = 8;

/**
 * Keeps a copy of a run's latest request: the caller's bytes may be a view that changes after the call
 * (the engine builds each request in place over the previous one). The copy reuses the previous copy's
 * buffer when it is big enough, so a long run does not allocate a new one per request.
 */
function remember(invocationsDir: string, entry: Omit<LastRequest, 'body' | 'store'>, body: Uint8Array): void {
  let store = lastRequests.get(invocationsDir)?.store;
  lastRequests.delete(invocationsDir);
  if (!store || store.length < body.length)
    store = Buffer.allocUnsafeSlow(Math.max(body.length, Math.ceil((store?.length ?? 0) * 1.5), 4096));
  store.set(body);
  lastRequests.set(invocationsDir, { ...entry, store, body: store.subarray(0, body.length) });
  if (lastRequests.size > MAX_CACHED_RUNS) lastRequests.delete(lastRequests.keys().next().value!);
}

/** The previous request of this run, if its record on disk is exactly the one this process wrote. */
function previousRequest(invocationsDir: string): LastRequest | undefined {
  const entry = lastRequests.get(invocationsDir);
  if (!entry) return undefined;
  try {
    const stats = statSync(entry.file);
    if (stats.ino === entry.ino && stats.size === entry.size && stats.mtimeMs === entry.mtimeMs) return entry;
  } catch {
    // Gone: fall through.
  }
  lastRequests.delete(invocationsDir);
  return undefined;
}

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

function writeRecord(
  dir: string,
  name: string,
  content: string | Uint8Array,
  newDirectory: boolean,
): { file: string; ino: number; size: number; mtimeMs: number } {
  const file = join(dir, name);
  writeFileSync(file, content);
  // A directory holds exactly one of the two forms (a retried call rewrites its record).
  const other = join(dir, name === REQUEST_FILE ? REQUEST_DELTA_FILE : REQUEST_FILE);
  if (!newDirectory && existsSync(other)) rmSync(other, { force: true });
  const stats = statSync(file);
  return { file, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

/**
 * Records the exact request body of an invocation, before the call is made: `request.json` with the
 * whole body, or `request.delta.json` with only what is new since the previous request of the run
 * (see docs/control-plane.md). A delta is written only when the previous record is the one this
 * process wrote and still unchanged on disk, when the two requests share at least half of this one,
 * and when the chain of deltas is shorter than MAX_DELTA_CHAIN; otherwise the body is copied whole.
 * `readInvocationRequest` gives back the exact bytes either way. The body is text or its UTF-8 bytes;
 * bytes are not kept after the call.
 */
export function writeInvocationRequest(paths: RunPaths, invocationId: string, requestBody: string | Uint8Array): string {
  const body = typeof requestBody === 'string' ? Buffer.from(requestBody, 'utf8') : requestBody;
  const dir = invocationDirectory(paths, invocationId);
  const newDirectory = mkdirSync(dir, { recursive: true }) !== undefined;
  const previous = previousRequest(paths.invocationsDir);

  if (previous && previous.invocationId === invocationId && previous.body.equals(body)) return dir;
  let delta: RequestDelta | undefined;
  if (previous && previous.invocationId !== invocationId && previous.depth < MAX_DELTA_CHAIN) {
    const shared = commonPrefixBytes(previous.body, body);
    if (shared * 2 >= body.length) {
      const suffix = Buffer.from(body.buffer, body.byteOffset + shared, body.length - shared).toString('utf8');
      delta = { format: REQUEST_DELTA_FORMAT, base: previous.invocationId, prefix_bytes: shared, suffix, bytes: body.length };
    }
  }
  const written = delta
    ? writeRecord(dir, REQUEST_DELTA_FILE, `${JSON.stringify(delta)}\n`, newDirectory)
    : writeRecord(dir, REQUEST_FILE, body, newDirectory);
  remember(paths.invocationsDir, { invocationId, depth: delta ? previous!.depth + 1 : 0, ...written }, body);
  return dir;
}

function invalid(file: string, problem: string): SystemError {
  return new SystemError(`${file}: ${problem}`, {
    code: 'INVOCATION_REQUEST_INVALID',
    file,
    hint: 'The io/invocations/ records are written by the engine alone; see docs/control-plane.md for their format.',
  });
}

function readDelta(file: string): RequestDelta {
  const value = parseJson(readFileSync(file, 'utf8'), file) as Partial<RequestDelta> | null;
  if (!value || typeof value !== 'object' || value.format !== REQUEST_DELTA_FORMAT) {
    throw invalid(file, `not a request delta (expected "format": "${REQUEST_DELTA_FORMAT}")`);
  }
  if (typeof value.base !== 'string' || value.base === '' || value.base.includes('/') || value.base.startsWith('.')) {
    throw invalid(file, 'field "base" must name an earlier invocation of the same run');
  }
  if (!Number.isSafeInteger(value.prefix_bytes) || value.prefix_bytes! < 0)
    throw invalid(file, 'field "prefix_bytes" must be a whole number');
  if (typeof value.suffix !== 'string') throw invalid(file, 'field "suffix" must be a string');
  if (!Number.isSafeInteger(value.bytes)) throw invalid(file, 'field "bytes" must be a whole number');
  return value as RequestDelta;
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
      whole = readFileSync(full);
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
