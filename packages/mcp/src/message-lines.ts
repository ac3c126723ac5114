/**
 * Splits a server's stdout into lines of at most `maxBytes`, as they arrive. A longer line is never held
 * whole: it is reported once, as soon as it passes the limit, and skipped up to its end.
 */
export class MessageLines {
  private pieces: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer, onLine: (line: string) => void, onOversized: () => void): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const part = chunk.subarray(start, end);
      if (this.skipping) this.skipping = false;
      else if (this.size + part.length > this.maxBytes) onOversized();
      else
        onLine(
          Buffer.concat([...this.pieces, part])
            .toString('utf8')
            .replace(/\r$/, ''),
        );
      this.pieces = [];
      this.size = 0;
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.skipping) return;
    if (this.size + rest.length > this.maxBytes) {
      this.pieces = [];
      this.size = 0;
      this.skipping = true;
      onOversized();
      return;
    }
    this.pieces.push(rest);
    this.size += rest.length;
  }
}
