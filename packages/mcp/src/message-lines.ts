/** What a line's start is held in before any of it has come. */
const NOTHING = Buffer.alloc(0);

/**
 * Splits a server's stdout into lines of at most `maxBytes`, as they arrive. A longer line is never held
 * whole: it is reported once, as soon as it passes the limit, and skipped up to its end. The start of a
 * line is held in one buffer grown by doubling, so that a line that comes a byte at a time is not held as
 * a buffer (and an object) per byte, many times its size.
 */
export class MessageLines {
  private held = NOTHING;
  private size = 0;
  private skipping = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer, onLine: (line: string) => void, onOversized: () => void): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const part = chunk.subarray(start, end);
      if (this.skipping) this.skipping = false;
      else if (this.size + part.length > this.maxBytes) onOversized();
      else {
        const line = this.size === 0 ? part : Buffer.concat([this.held.subarray(0, this.size), part]);
        onLine(line.toString('utf8').replace(/\r$/, ''));
      }
      this.release();
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.skipping) return;
    if (this.size + rest.length > this.maxBytes) {
      this.release();
      this.skipping = true;
      onOversized();
      return;
    }
    this.hold(rest);
  }

  private hold(part: Buffer): void {
    if (this.size + part.length > this.held.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.maxBytes, Math.max(this.held.length * 2, this.size + part.length, 4096)));
      this.held.copy(grown, 0, 0, this.size);
      this.held = grown;
    }
    part.copy(this.held, this.size);
    this.size += part.length;
  }

  private release(): void {
    this.held = NOTHING;
    this.size = 0;
  }
}
