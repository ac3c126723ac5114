// @ts-check
// Plain JavaScript because the supervisor (supervisor.js) runs it as its own node process, from
// source and from dist alike; tsc checks it through checkJs.

/**
 * Collects one output stream, keeping at most `limit` bytes however much arrives: the first half
 * and the last half. `text()` joins them with a note saying how many bytes were dropped.
 */
export class CappedOutput {
  /** @param {number} limit the most bytes kept and returned */
  constructor(limit) {
    this.limit = limit;
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = limit - this.headLimit;
    /** @type {Buffer[]} */
    this.head = [];
    this.headBytes = 0;
    /** @type {Buffer[]} */
    this.tail = [];
    this.tailBytes = 0;
    /** Every byte seen, kept or not. */
    this.totalBytes = 0;
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const taken = rest.subarray(0, this.headLimit - this.headBytes);
      this.head.push(Buffer.from(taken));
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    if (rest.length >= this.tailLimit) {
      this.tail = [Buffer.from(rest.subarray(rest.length - this.tailLimit))];
      this.tailBytes = this.tailLimit;
      return;
    }
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes > this.tailLimit) {
      const first = /** @type {Buffer} */ (this.tail[0]);
      const excess = this.tailBytes - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  /** Bytes held in memory right now; never more than `limit`. */
  get retainedBytes() {
    return this.headBytes + this.tailBytes;
  }

  get droppedBytes() {
    return this.totalBytes - this.retainedBytes;
  }

  /** The kept output as text, with a note where bytes were dropped. */
  text() {
    const head = Buffer.concat(this.head).toString('utf8');
    if (this.droppedBytes === 0) return head + Buffer.concat(this.tail).toString('utf8');
    const note =
      `\n[delta-sessions: output truncated, ${this.droppedBytes} of ${this.totalBytes} bytes dropped from the middle; ` +
      `the limit is ${this.limit} bytes per stream (--max-output-bytes)]\n`;
    return head + note + Buffer.concat(this.tail).toString('utf8');
  }
}
