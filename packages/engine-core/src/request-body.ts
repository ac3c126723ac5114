/**
 * The JSON text of each message object already serialized. Messages rebuilt from the journal are the
 * same objects from one iteration to the next (the context builder keeps them), so their text is made once.
 */
const messageText = new WeakMap<object, string>();

function messageJson(message: unknown): string {
  if (message === null || typeof message !== 'object') return JSON.stringify(message) ?? 'null';
  let text = messageText.get(message);
  if (text === undefined) {
    text = JSON.stringify(message) ?? 'null';
    messageText.set(message, text);
  }
  return text;
}

/** The payload can be built as `{...rest,"messages":[...]}`: its messages are an array and its last key. */
function messagesLast(payload: object): payload is { messages: unknown[] } {
  const keys = Object.keys(payload);
  return keys.at(-1) === 'messages' && Array.isArray((payload as { messages?: unknown }).messages) && !('toJSON' in payload);
}

/**
 * Builds request bodies, byte for byte `JSON.stringify(payload)` in UTF-8, at the cost of what changed.
 *
 * A run's requests grow by a few messages per iteration and are otherwise the same: the builder keeps the
 * previous body in one buffer, keeps the bytes of the leading messages that are the same as last time
 * (the same objects, or the same text), and writes only the rest. A request of n messages then costs the new messages, not all n; a
 * payload built some other way (its messages not last) is serialized whole.
 *
 * The bytes returned are a view of the builder's buffer: they are valid until the next `build`.
 */
export class RequestBodyBuilder {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private length = 0;
  /** JSON of the payload without its messages, and the bytes of `{...,"messages":[` it starts the body with. */
  private head: string | undefined;
  private headBytes = 0;
  /** The messages in the buffer, their JSON texts, and where each one's JSON ends. */
  private messages: unknown[] = [];
  private texts: string[] = [];
  private ends: number[] = [];

  build(payload: object): Uint8Array {
    if (!messagesLast(payload)) {
      this.head = undefined;
      return Buffer.from(JSON.stringify(payload), 'utf8');
    }
    const { messages, ...rest } = payload;
    const head = JSON.stringify(rest);
    if (head !== this.head) {
      this.head = head;
      this.messages = [];
      this.texts = [];
      this.ends = [];
      this.length = 0;
      this.write(`${head.slice(0, -1)}${head === '{}' ? '' : ','}"messages":[`);
      this.headBytes = this.length;
    }
    // Leading messages already in the buffer are kept: the same objects, or (a system message read again
    // from its file, say) new objects with the same text.
    let kept = 0;
    const same = Math.min(this.messages.length, messages.length);
    while (kept < same) {
      if (this.messages[kept] !== messages[kept]) {
        if (messageJson(messages[kept]) !== this.texts[kept]) break;
        this.messages[kept] = messages[kept];
      }
      kept += 1;
    }
    this.messages.length = kept;
    this.texts.length = kept;
    this.ends.length = kept;
    this.length = kept > 0 ? this.ends[kept - 1]! : this.headBytes;
    for (let index = kept; index < messages.length; index += 1) {
      const text = messageJson(messages[index]);
      if (index > 0) this.write(',');
      this.write(text);
      this.messages.push(messages[index]);
      this.texts.push(text);
      this.ends.push(this.length);
    }
    this.write(']}');
    return this.buffer.subarray(0, this.length);
  }

  private write(text: string): void {
    const needed = this.length + Buffer.byteLength(text, 'utf8');
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length, 'utf8');
  }
}
