export const quote = 0x22;
export const comma = 0x2c;
export const colon = 0x3a;
export const openBracket = 0x5b;
export const closeBracket = 0x5d;
export const openBrace = 0x7b;
export const closeBrace = 0x7d;
const backslash = 0x5c;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Steps over the UTF-8 bytes of JSON text without building values, to find where things sit. Its answers
 * mean something only for valid JSON; on anything else it still ends, at the end of the bytes at worst.
 * Multi-byte characters never contain a byte below 0x80, so looking at single bytes is safe.
 */
export class JsonScanner {
  constructor(
    readonly bytes: Buffer,
    public position = 0,
  ) {}

  /** Skips whitespace; the byte there, or -1 at the end. */
  peek(): number {
    const { bytes } = this;
    let position = this.position;
    while (position < bytes.length && isWhitespace(bytes[position]!)) position++;
    this.position = position;
    return position < bytes.length ? bytes[position]! : -1;
  }

  /** Skips one value: a string, an object or array with everything in it, or a number or literal. */
  skipValue(): void {
    const first = this.peek();
    const { bytes } = this;
    let position = this.position;
    if (first !== quote && first !== openBrace && first !== openBracket) {
      while (position < bytes.length && !isDelimiter(bytes[position]!)) position++;
      this.position = position;
      return;
    }
    let depth = 0;
    while (position < bytes.length) {
      const byte = bytes[position++]!;
      if (byte === quote) {
        position = stringEnd(bytes, position);
      } else if (byte === openBrace || byte === openBracket) {
        depth++;
      } else if (byte !== closeBrace && byte !== closeBracket) {
        continue;
      } else {
        depth--;
      }
      if (depth === 0) break;
    }
    this.position = position;
  }
}

function isDelimiter(byte: number): boolean {
  return byte === comma || byte === closeBrace || byte === closeBracket || isWhitespace(byte);
}

/** Just after the closing quote of the string whose contents start at `position`. */
function stringEnd(bytes: Uint8Array, position: number): number {
  while (position < bytes.length) {
    const byte = bytes[position++]!;
    if (byte === quote) return position;
    if (byte === backslash) position++;
  }
  return bytes.length;
}
