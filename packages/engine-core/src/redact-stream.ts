import { REDACTED } from '@delta/model-wire';
import { redactable, type Secrets } from './redact-secret.js';

/**
 * Redacts a secret from something written piece by piece (a streamed answer's bytes, its text deltas),
 * where the secret may be cut between two pieces. A piece is passed on at once except for its end when
 * that end could be the start of the secret: those few characters wait for the next piece (or `end`).
 * Without a redactable secret, pieces pass through untouched.
 */
export class RedactingStream<T extends string | Buffer> {
  #held: T | undefined;
  readonly #secrets: string[];

  constructor(
    secrets: Secrets,
    private readonly emit: (piece: T) => void,
  ) {
    this.#secrets = redactable(secrets);
  }

  push(piece: T): void {
    if (this.#secrets.length === 0) {
      this.emit(piece);
      return;
    }
    const text = (this.#held === undefined ? piece : join(this.#held, piece)) as T;
    this.#held = undefined;
    let redacted = text;
    for (const secret of this.#secrets) redacted = replaceAll(redacted, secret);
    const keep = Math.max(...this.#secrets.map((secret) => partialSecretAtEnd(redacted, secret)));
    const out = redacted.slice(0, redacted.length - keep) as T;
    if (keep > 0) this.#held = copy(redacted.slice(redacted.length - keep) as T);
    if (out.length > 0) this.emit(out);
  }

  /** The stream has ended: what was held back is passed on. */
  end(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && held.length > 0) this.emit(held);
  }
}

function join<T extends string | Buffer>(a: T, b: T): T {
  return (typeof a === 'string' ? a + (b as string) : Buffer.concat([a as Buffer, b as Buffer])) as T;
}

function copy<T extends string | Buffer>(value: T): T {
  return (typeof value === 'string' ? value : Buffer.from(value)) as T;
}

function replaceAll<T extends string | Buffer>(text: T, secret: string): T {
  if (typeof text === 'string') return (text.includes(secret) ? text.split(secret).join(REDACTED) : text) as T;
  const bytes = text as Buffer;
  let at = bytes.indexOf(secret);
  if (at < 0) return text;
  const pieces: Buffer[] = [];
  let start = 0;
  const secretBytes = Buffer.byteLength(secret);
  for (; at >= 0; at = bytes.indexOf(secret, start)) {
    pieces.push(bytes.subarray(start, at), Buffer.from(REDACTED));
    start = at + secretBytes;
  }
  pieces.push(bytes.subarray(start));
  return Buffer.concat(pieces) as T;
}

/**
 * How many units at the end of `text` are the beginning of `secret` (0 when none): they may go on in the
 * next piece. Only a unit equal to the secret's first one can start such an end, so most pieces cost one
 * look at their last few units and no copy.
 */
function partialSecretAtEnd(text: string | Buffer, secret: string): number {
  const prefix = typeof text === 'string' ? secret : Buffer.from(secret);
  const first = typeof prefix === 'string' ? prefix.charCodeAt(0) : prefix[0];
  const unitAt = (index: number) => (typeof text === 'string' ? text.charCodeAt(index) : text[index]);
  for (let start = Math.max(0, text.length - prefix.length + 1); start < text.length; start += 1) {
    if (unitAt(start) !== first) continue;
    let matches = true;
    for (let offset = 1; start + offset < text.length && matches; offset += 1) {
      const expected = typeof prefix === 'string' ? prefix.charCodeAt(offset) : prefix[offset];
      matches = unitAt(start + offset) === expected;
    }
    if (matches) return text.length - start;
  }
  return 0;
}
