// @ts-check
// Plain JavaScript: part of the supervisor process (see supervisor.js).

/**
 * Passes a stream's bytes to `sink` until `marker` appears, then reads the rest of the marker's
 * line (the trailer, e.g. `:0` with the exit code) and ignores everything after it. Holds back at
 * most marker.length - 1 bytes, in case a marker is split across chunks.
 */
export class MarkerScanner {
  /**
   * @param {string} marker
   * @param {(bytes: Buffer) => void} sink
   * @param {() => void} [onDone] called once, when the marker's line is complete
   */
  constructor(marker, sink, onDone) {
    this.marker = Buffer.from(marker);
    this.sink = sink;
    this.onDone = onDone;
    this.pending = Buffer.alloc(0);
    this.found = false;
    this.done = false;
    this.trailer = '';
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    if (this.done) return;
    if (this.found) {
      this.readTrailer(chunk);
      return;
    }
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const index = data.indexOf(this.marker);
    if (index >= 0) {
      if (index > 0) this.sink(data.subarray(0, index));
      this.found = true;
      this.pending = Buffer.alloc(0);
      this.readTrailer(data.subarray(index + this.marker.length));
      return;
    }
    const keep = Math.min(data.length, this.marker.length - 1);
    if (data.length > keep) this.sink(data.subarray(0, data.length - keep));
    this.pending = Buffer.from(data.subarray(data.length - keep));
  }

  /** Gives up on the marker (the process died): whatever was held back is output after all. */
  flush() {
    if (!this.found && this.pending.length > 0) this.sink(this.pending);
    this.pending = Buffer.alloc(0);
  }

  /** @param {Buffer} bytes */
  readTrailer(bytes) {
    const newline = bytes.indexOf(10);
    this.trailer += bytes.subarray(0, newline < 0 ? bytes.length : newline).toString('utf8');
    if (newline >= 0 || this.trailer.length > 64) {
      this.done = true;
      this.onDone?.();
    }
  }
}
