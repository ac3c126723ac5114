import { ByteReader, TarFormatError } from './byte-reader.js';

export { TarFormatError };

/** One entry of a tar stream, as its headers say (POSIX ustar, pax extended headers, GNU long names). */
export interface TarEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'hardlink' | 'character' | 'block' | 'fifo' | 'other';
  size: number;
  mode: number;
  linkpath: string;
  devmajor: number;
  devminor: number;
}

const BLOCK = 512;
/** A pax header or GNU long name larger than this is no name: refused, not read. */
const MAX_META_BYTES = 1024 * 1024;

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

/** An octal field, or GNU's base-256 for large values (its first byte's high bit set). */
function number(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    if (!Number.isSafeInteger(value)) throw new TarFormatError('a header holds a number too large');
    return value;
  }
  const digits = text(block, start, length).trim();
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new TarFormatError(`a header field holds ${JSON.stringify(digits)}, not an octal number`);
  return Number.parseInt(digits, 8);
}

function checksumMatches(block: Buffer): boolean {
  let sum = 0;
  for (let index = 0; index < BLOCK; index += 1) sum += index >= 148 && index < 156 ? 32 : block[index]!;
  return sum === number(block, 148, 8);
}

const TYPES: Record<string, TarEntry['type']> = {
  '': 'file',
  '0': 'file',
  '7': 'file',
  '1': 'hardlink',
  '2': 'symlink',
  '3': 'character',
  '4': 'block',
  '5': 'directory',
  '6': 'fifo',
};

/** The records of a pax extended header: `LENGTH KEY=VALUE\n` each. */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = space < 0 ? Number.NaN : Number(data.subarray(at, space).toString('ascii'));
    if (!Number.isSafeInteger(length) || length <= 0 || at + length > data.length)
      throw new TarFormatError('a pax header record is malformed');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}

/**
 * The entries of a tar stream, one at a time: for each, its header and `body`, the reader of its content
 * (a file's bytes), which the caller reads whole or leaves (the next entry skips what is left). Streams:
 * no more than a chunk of the input is held at once, whatever the entry's size. Long names (pax `path` and
 * `linkpath`, GNU `L` and `K`) and pax sizes are applied; global pax headers are skipped.
 */
export async function* tarEntries(source: AsyncIterable<Buffer>): AsyncGenerator<{ entry: TarEntry; body: () => AsyncGenerator<Buffer> }> {
  const reader = new ByteReader(source);
  let pending: { path?: string; linkpath?: string; size?: number } = {};
  let zeroBlocks = 0;
  while (true) {
    const block = await reader.read(BLOCK);
    if (block === undefined) return;
    if (block.every((byte) => byte === 0)) {
      zeroBlocks += 1;
      if (zeroBlocks === 2) return;
      continue;
    }
    zeroBlocks = 0;
    if (!checksumMatches(block)) throw new TarFormatError('a header block fails its checksum: this is not a tar archive, or it is damaged');
    const flag = String.fromCharCode(block[156]!).replace('\0', '');
    const size = pending.size ?? number(block, 124, 12);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      if (size > MAX_META_BYTES) throw new TarFormatError(`a ${flag} header of ${size} bytes is larger than any name`);
      const data = await reader.read(padded);
      if (data === undefined) throw new TarFormatError('the archive ends inside a header');
      const content = data.subarray(0, size);
      if (flag === 'x') {
        const records = paxRecords(content);
        const paxSize = records.get('size');
        pending = {
          ...pending,
          ...(records.has('path') ? { path: records.get('path')! } : {}),
          ...(records.has('linkpath') ? { linkpath: records.get('linkpath')! } : {}),
          ...(paxSize !== undefined && /^\d+$/.test(paxSize) ? { size: Number(paxSize) } : {}),
        };
      } else if (flag === 'L') pending.path = content.toString('utf8').replace(/\0+$/, '');
      else if (flag === 'K') pending.linkpath = content.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    const prefix = text(block, 257, 6).startsWith('ustar') ? text(block, 345, 155) : '';
    const name = text(block, 0, 100);
    const entry: TarEntry = {
      path: pending.path ?? (prefix ? `${prefix}/${name}` : name),
      type: TYPES[flag] ?? 'other',
      size: flag === '5' || flag === '2' || flag === '1' ? 0 : size,
      mode: number(block, 100, 8) & 0o7777,
      linkpath: pending.linkpath ?? text(block, 157, 100),
      devmajor: number(block, 329, 8),
      devminor: number(block, 337, 8),
    };
    pending = {};
    let left = size;
    const body = async function* (): AsyncGenerator<Buffer> {
      while (left > 0) {
        const chunk = await reader.readUpTo(Math.min(left, 1 << 20));
        if (chunk === undefined) throw new TarFormatError(`the archive ends inside ${entry.path}`);
        left -= chunk.length;
        yield chunk;
      }
    };
    yield { entry, body };
    // What the caller did not read of the body, then the padding to the next block.
    if (left > 0 && !(await reader.skip(left))) throw new TarFormatError(`the archive ends inside ${entry.path}`);
    left = 0;
    if (padded > size && !(await reader.skip(padded - size))) throw new TarFormatError(`the archive ends after ${entry.path}`);
  }
}
