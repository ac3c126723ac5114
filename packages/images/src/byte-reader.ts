/** A stream that is not what its reader expects (cut short, a bad header): the message says how. */
export class TarFormatError extends Error {}

/**
 * Reads a stream of chunks by counts of bytes, holding no more than one chunk beyond what was asked for:
 * what a streaming parser needs (tarEntries).
 */
export class ByteReader {
  private readonly iterator: AsyncIterator<Buffer>;
  private chunk: Buffer = Buffer.alloc(0);
  private ended = false;

  constructor(source: AsyncIterable<Buffer>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** Whether a chunk is at hand (reading the next one when the last is used up); false at the end. */
  private async fill(): Promise<boolean> {
    while (this.chunk.length === 0) {
      if (this.ended) return false;
      const next = await this.iterator.next();
      if (next.done) {
        this.ended = true;
        return false;
      }
      this.chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    }
    return true;
  }

  /** Exactly `count` bytes; undefined at the end of the stream (with nothing read); an error if it ends in between. */
  async read(count: number): Promise<Buffer | undefined> {
    if (!(await this.fill())) return undefined;
    if (this.chunk.length >= count) {
      const taken = this.chunk.subarray(0, count);
      this.chunk = this.chunk.subarray(count);
      return taken;
    }
    const parts: Buffer[] = [];
    let have = 0;
    while (have < count) {
      if (!(await this.fill())) throw new TarFormatError(`the stream ended ${count - have} bytes short`);
      const taken = this.chunk.subarray(0, count - have);
      this.chunk = this.chunk.subarray(taken.length);
      parts.push(taken);
      have += taken.length;
    }
    return Buffer.concat(parts, count);
  }

  /** Between 1 and `count` bytes, as they come; undefined at the end. */
  async readUpTo(count: number): Promise<Buffer | undefined> {
    if (!(await this.fill())) return undefined;
    const taken = this.chunk.subarray(0, count);
    this.chunk = this.chunk.subarray(taken.length);
    return taken;
  }

  /** Passes over `count` bytes; false when the stream ends first. */
  async skip(count: number): Promise<boolean> {
    let left = count;
    while (left > 0) {
      const taken = await this.readUpTo(left);
      if (taken === undefined) return false;
      left -= taken.length;
    }
    return true;
  }
}
