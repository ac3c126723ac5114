const NOTHING = Buffer.alloc(0);

/**
 * Bytes that come in pieces, held in one buffer grown by doubling: what comes a byte at a time is held in
 * about its own size, not as a buffer (and an object) per byte, many times its size.
 */
export class HeldBytes {
  private held = NOTHING;
  private length = 0;

  get size(): number {
    return this.length;
  }

  add(part: Uint8Array): void {
    if (this.length + part.length > this.held.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.held.length * 2, this.length + part.length, 4096));
      this.held.copy(grown, 0, 0, this.length);
      this.held = grown;
    }
    this.held.set(part, this.length);
    this.length += part.length;
  }

  /** What is held, and then `last`, as one buffer. */
  bytes(last?: Buffer): Buffer {
    const held = this.held.subarray(0, this.length);
    return last === undefined ? held : this.length === 0 ? last : Buffer.concat([held, last]);
  }

  clear(): void {
    this.held = NOTHING;
    this.length = 0;
  }
}

/**
 * Splits a server's stdout into lines of at most `maxBytes`, as they arrive. A longer line is never held
 * whole: it is reported once, as soon as it passes the limit, and skipped up to its end. The start of a
 * line is held as HeldBytes, in about its own size however it comes.
 */
export class MessageLines {
  private readonly held = new HeldBytes();
  private skipping = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer, onLine: (line: string) => void, onOversized: () => void): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const part = chunk.subarray(start, end);
      if (this.skipping) this.skipping = false;
      else if (this.held.size + part.length > this.maxBytes) onOversized();
      else onLine(this.held.bytes(part).toString('utf8').replace(/\r$/, ''));
      this.held.clear();
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.skipping) return;
    if (this.held.size + rest.length > this.maxBytes) {
      this.held.clear();
      this.skipping = true;
      onOversized();
      return;
    }
    this.held.add(rest);
  }
}
