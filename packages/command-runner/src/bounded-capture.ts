/**
 * Keeps the first and the last `limit` bytes of a stream and counts the rest, so output of any size
 * costs at most twice `limit` in memory.
 */
export class BoundedCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.limit) {
      const taken = rest.subarray(0, this.limit - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.limit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  result(): CapturedOutput {
    const head = Buffer.concat(this.head).toString('utf8');
    const tailBuffer = Buffer.concat(this.tail);
    const tail = tailBuffer.subarray(Math.max(0, tailBuffer.length - this.limit));
    const omitted = this.total - this.headBytes - tail.length;
    return { head, tail: tail.toString('utf8'), totalBytes: this.total, omittedBytes: omitted };
  }
}

/** What was kept of one output stream. `head + tail` is the whole output when `omittedBytes` is 0. */
export interface CapturedOutput {
  head: string;
  tail: string;
  totalBytes: number;
  omittedBytes: number;
}

/** The kept text, with a line saying how much was left out in the middle and where the rest is. */
export function formatCapturedOutput(output: CapturedOutput, fullOutputPath?: string): string {
  if (output.omittedBytes === 0) return output.head + output.tail;
  const where = fullOutputPath ? `; the full output is in ${fullOutputPath}` : '';
  return `${output.head}\n[... ${output.omittedBytes} bytes omitted of ${output.totalBytes}${where} ...]\n${output.tail}`;
}
