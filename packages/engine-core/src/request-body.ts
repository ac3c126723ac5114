/** A message text at least this long is not kept to compare with the next request's: see `build`. */
const KEPT_TEXT_CHARS = 1024 * 1024;

/**
 * Builds request bodies, byte for byte `JSON.stringify({ ...parameters, messages })` in UTF-8, from the
 * JSON text of each message, at the cost of what changed.
 *
 * A run's requests grow by a few messages per iteration and are otherwise the same: the builder keeps
 * the previous body in one buffer and, while the parameters are the same, keeps the bytes of the leading
 * messages whose texts are equal (compared as strings, so a text is never trusted by where it came
 * from), and writes only the rest. A request of n messages then costs the new messages, not all n.
 *
 * The bytes returned are a view of the builder's buffer: they are valid until the next `build`.
 */
export class RequestBodyBuilder {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private length = 0;
  /** JSON of the parameters, and the bytes of `{...,"messages":[` it starts the body with. */
  private head: string | undefined;
  private headBytes = 0;
  /** The JSON texts of the messages in the buffer (undefined for a long one), and where each one ends. */
  private texts: Array<string | undefined> = [];
  private ends: number[] = [];

  /**
   * The body of `{ ...parameters, messages }`, given `json[i] === JSON.stringify(messages[i])`. The
   * parameters must not hold a `messages` key (the messages are always the body's last key).
   *
   * A long text (a large tool call's arguments) is not kept after it is written: holding it until the
   * next request would keep a copy of it in memory through the tools' run. The messages from there on are
   * written again each time, which costs no more than the text's JSON the caller made for this request.
   */
  build(parameters: object, json: readonly string[]): Uint8Array {
    const head = JSON.stringify(parameters);
    if (head !== this.head) {
      this.head = head;
      this.texts = [];
      this.ends = [];
      this.length = 0;
      this.write(`${head.slice(0, -1)}${head === '{}' ? '' : ','}"messages":[`);
      this.headBytes = this.length;
    }
    let kept = 0;
    const same = Math.min(this.texts.length, json.length);
    while (kept < same && this.texts[kept] === json[kept]) kept += 1;
    this.texts.length = kept;
    this.ends.length = kept;
    this.length = kept > 0 ? this.ends[kept - 1]! : this.headBytes;
    // Grown once, to the size of the whole body: growing by doubling would leave the old buffers of a
    // large body behind, each as large as the body, until the next collection.
    let needed = this.length + 2;
    for (let index = kept; index < json.length; index += 1) needed += Buffer.byteLength(json[index]!, 'utf8') + (index > 0 ? 1 : 0);
    this.reserve(needed);
    for (let index = kept; index < json.length; index += 1) {
      const text = json[index]!;
      if (index > 0) this.write(',');
      this.write(text);
      this.texts.push(text.length < KEPT_TEXT_CHARS ? text : undefined);
      this.ends.push(this.length);
    }
    this.write(']}');
    return this.buffer.subarray(0, this.length);
  }

  /** Makes room for a body of `bytes` bytes, keeping the first `length`. */
  private reserve(bytes: number): void {
    if (bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(bytes, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  private write(text: string): void {
    this.reserve(this.length + Buffer.byteLength(text, 'utf8'));
    this.length += this.buffer.write(text, this.length, 'utf8');
  }
}
