import { jsonStringPieces } from '@delta/command-runner';

/** A message text at least this long is not kept to compare with the next request's: see `build`. */
const KEPT_TEXT_CHARS = 1024 * 1024;
/** A string at least this long in a message without a JSON text is written a piece at a time. */
const LARGE_STRING_CHARS = 64 * 1024;
/** Stands in the JSON of a message for each of its large strings, which are written in its place. */
const STAND_IN = '\u0000delta:large string\u0000';
const QUOTED_STAND_IN = JSON.stringify(STAND_IN);

/**
 * The JSON text of a message, as pieces whose concatenation is `JSON.stringify(message)`: its large
 * strings (a 30 MB tool call's arguments) are written a piece at a time, so that the JSON of the whole
 * message is never made. A message in which the stand-in appears otherwise is given whole.
 */
function* messagePieces(message: unknown): Generator<string> {
  const large: string[] = [];
  const skeleton = JSON.stringify(message, (_key, value: unknown) => {
    if (typeof value !== 'string' || value.length < LARGE_STRING_CHARS) return value;
    large.push(value);
    return STAND_IN;
  });
  const parts = skeleton.split(QUOTED_STAND_IN);
  if (parts.length !== large.length + 1) {
    yield JSON.stringify(message);
    return;
  }
  for (const [index, part] of parts.entries()) {
    yield part;
    if (index < large.length) yield* jsonStringPieces(large[index]!);
  }
}

/**
 * Builds request bodies, byte for byte `JSON.stringify({ ...parameters, messages })` in UTF-8, from the
 * JSON text of each message, at the cost of what changed.
 *
 * A run's requests grow by a few messages per iteration and are otherwise the same: the builder keeps
 * the previous body in one buffer and, while the parameters are the same, keeps the bytes of the leading
 * messages whose texts are equal (compared as strings, so a text is never trusted by where it came
 * from), and writes only the rest. A request of n messages then costs the new messages, not all n.
 *
 * A message given without its JSON text (a large one: the run's state keeps none) is written from the
 * message itself, its large strings a piece at a time, so that its JSON is never made whole.
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
   * The body of `{ ...parameters, messages }`, given `json[i] === JSON.stringify(messages[i])` or
   * undefined. The parameters must not hold a `messages` key (the messages are always the body's last key).
   *
   * A long text (a large tool call's arguments), or a message without one, is not kept after it is
   * written: holding it until the next request would keep a copy of it in memory through the tools' run.
   * The messages from there on are written again each time.
   */
  build(parameters: object, json: ReadonlyArray<string | undefined>, messages: readonly unknown[]): Uint8Array {
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
    while (kept < same && this.texts[kept] !== undefined && this.texts[kept] === json[kept]) kept += 1;
    this.texts.length = kept;
    this.ends.length = kept;
    this.length = kept > 0 ? this.ends[kept - 1]! : this.headBytes;
    // Grown once, to the size of the whole body: growing by doubling would leave the old buffers of a
    // large body behind, each as large as the body, until the next collection.
    let needed = this.length + 2;
    for (let index = kept; index < json.length; index += 1) {
      const text = json[index];
      if (text !== undefined) needed += Buffer.byteLength(text, 'utf8');
      else for (const piece of messagePieces(messages[index])) needed += Buffer.byteLength(piece, 'utf8');
      if (index > 0) needed += 1;
    }
    this.reserve(needed);
    for (let index = kept; index < json.length; index += 1) {
      const text = json[index];
      if (index > 0) this.write(',');
      if (text !== undefined) this.write(text);
      else for (const piece of messagePieces(messages[index])) this.write(piece);
      this.texts.push(text !== undefined && text.length < KEPT_TEXT_CHARS ? text : undefined);
      this.ends.push(this.length);
    }
    this.write(']}');
    return this.buffer.subarray(0, this.length);
  }

  /**
   * Makes room for a body of `bytes` bytes, keeping the first `length`: twice as much, or a quarter more
   * than asked, so that the next request, a little longer, fits (a buffer replaced is garbage as large
   * as the body until the next collection, beside the new one).
   */
  private reserve(bytes: number): void {
    if (bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(Math.ceil(bytes * 1.25), this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  private write(text: string): void {
    this.reserve(this.length + Buffer.byteLength(text, 'utf8'));
    this.length += this.buffer.write(text, this.length, 'utf8');
  }
}
