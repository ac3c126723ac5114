import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, createReadStream, fstatSync, openSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { imageError } from './image-error.js';
import type { ImageLayer } from './resolved-image.js';
import { tarEntries, TarFormatError, type TarEntry } from './tar-reader.js';

/** Opens a blob file of this machine for reading: a regular file, never through a link, never blocking on a FIFO. */
export function openBlob(file: string, what: () => string): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw imageError(
      code === 'ENOENT' ? 'IMAGE_NOT_FOUND' : 'IMAGE_INVALID',
      `${what()}: ${code === 'ENOENT' ? 'it is missing' : `it cannot be opened (${code})`} at ${file}`,
    );
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw imageError('IMAGE_INVALID', `${what()}: ${file} is not a regular file`);
  }
  return fd;
}

/** The chunks of `source`, each added to `hash` and counted; more than `bound` bytes stops it. */
async function* counted(source: AsyncIterable<Buffer>, hash: Hash, count: { bytes: number }, bound: number, over: () => Error) {
  for await (const chunk of source) {
    count.bytes += chunk.length;
    if (count.bytes > bound) throw over();
    hash.update(chunk);
    yield chunk;
  }
}

/** The sha256 of a blob file, streamed. */
export async function fileDigest(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream('', { fd: openBlob(file, () => file) })) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

const GZIP = Buffer.from([0x1f, 0x8b]);
const ZSTD = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

/** The compression of a layer, by its first bytes (a media type can lie; bytes cannot). */
async function firstBytes(file: string): Promise<Buffer> {
  const fd = openBlob(file, () => file);
  try {
    const stream = createReadStream('', { fd, start: 0, end: 3, autoClose: false });
    const parts: Buffer[] = [];
    for await (const chunk of stream) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads one layer blob (`file`), streaming: its bytes hashed against its digest and size, gunzipped when
 * it is gzip, the result hashed against its `diff_id` and bounded by `maxBytes` (a gzip bomb stops there),
 * and each tar entry handed to `apply` as it comes. Throws when a digest or the size differs, once the
 * whole layer has been read: the caller's staging directory is then not to be used.
 */
export async function readLayer(
  file: string,
  layer: ImageLayer,
  maxBytes: number,
  describe: () => string,
  apply: (entry: TarEntry, body: () => AsyncGenerator<Buffer>) => Promise<void>,
): Promise<void> {
  const head = await firstBytes(file);
  if (head.subarray(0, 4).equals(ZSTD)) {
    throw imageError(
      'IMAGE_INVALID',
      `${describe()} is compressed with zstd, which Delta does not read`,
      'Convert it: skopeo copy --dest-compress-format gzip SOURCE oci:DIR:TAG.',
    );
  }
  const fd = openBlob(file, describe);
  const compressedHash = createHash('sha256');
  const diffHash = createHash('sha256');
  const compressed = { bytes: 0 };
  const decompressed = { bytes: 0 };
  const tooLarge = () => imageError('IMAGE_INVALID', `${describe()} is larger than ${maxBytes} bytes uncompressed, the bound`);
  const raw = counted(createReadStream('', { fd }) as AsyncIterable<Buffer>, compressedHash, compressed, Number.MAX_SAFE_INTEGER, tooLarge);
  let plain: AsyncIterable<Buffer> = raw;
  if (head.subarray(0, 2).equals(GZIP)) {
    const source = Readable.from(raw);
    const gunzip = createGunzip();
    source.on('error', (error) => gunzip.destroy(error));
    plain = source.pipe(gunzip);
  }
  const iterator = counted(plain, diffHash, decompressed, maxBytes, tooLarge)[Symbol.asyncIterator]();
  try {
    for await (const { entry, body } of tarEntries({ [Symbol.asyncIterator]: () => iterator })) await apply(entry, body);
    // After the tar's end, whatever padding is left: the digests are of every byte.
    for (let next = await iterator.next(); !next.done; next = await iterator.next());
  } catch (error) {
    // A blob that is not what its digest names says so first, whatever it made the reading trip on.
    const found = await fileDigest(file);
    if (found !== layer.digest)
      throw imageError(
        'IMAGE_DIGEST_MISMATCH',
        `${describe()} is not what its digest names: it hashes to ${found}, the image says ${layer.digest}`,
      );
    if (error instanceof TarFormatError || String((error as NodeJS.ErrnoException).code).startsWith('Z_')) {
      throw imageError('IMAGE_INVALID', `${describe()} is not a readable layer: ${(error as Error).message}`);
    }
    throw error;
  }
  const digest = `sha256:${compressedHash.digest('hex')}`;
  if (digest !== layer.digest || compressed.bytes !== layer.size) {
    throw imageError(
      'IMAGE_DIGEST_MISMATCH',
      `${describe()} is not what its digest names: its ${compressed.bytes} bytes hash to ${digest}, the image says ${layer.digest} (${layer.size} bytes)`,
    );
  }
  const diffId = `sha256:${diffHash.digest('hex')}`;
  if (diffId !== layer.diffId) {
    throw imageError(
      'IMAGE_DIGEST_MISMATCH',
      `${describe()} uncompressed hashes to ${diffId}, but the image's config says its diff_id is ${layer.diffId}`,
    );
  }
}
