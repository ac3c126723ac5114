import { JsonScanner, closeBracket, colon, comma, openBrace, openBracket, quote } from './json-scan.js';

/** Where the top-level `messages` array of a JSON object sits in its UTF-8 bytes. */
export interface MessagesSpan {
  /** Just after the array's `[`. */
  start: number;
  /** Just after its last element; `start` when it is empty. */
  end: number;
}

/**
 * The span of the `messages` array in the bytes of a JSON object that JSON.parse accepted; null when the
 * object has no such array or names `messages` twice (JSON.parse keeps the last, so no one span is it).
 */
export function findMessagesSpan(bytes: Buffer): MessagesSpan | null {
  const scanner = new JsonScanner(bytes);
  if (scanner.peek() !== openBrace) return null;
  scanner.position++;
  for (;;) {
    const isMessages = nextKeyIsMessages(scanner);
    if (isMessages === null) return null;
    if (!isMessages) {
      scanner.skipValue();
      continue;
    }
    if (scanner.peek() !== openBracket) return null;
    scanner.position++;
    const start = scanner.position;
    let end: number | null = start;
    if (scanner.peek() !== closeBracket) {
      scanner.skipValue();
      end = scanner.position;
    }
    end = skipElements(scanner, end);
    return end === null || restNamesMessages(scanner) ? null : { start, end };
  }
}

/**
 * Continues through the bytes of a body whose text up to `from`, just after an element of its top-level
 * `messages` array, is known: the end of the array's last element. Null when what follows is not more
 * elements and the array's end (`[a,]` must not pass for `[]`), or when a later key names `messages` again.
 */
export function continueMessagesSpan(bytes: Buffer, from: number): number | null {
  const scanner = new JsonScanner(bytes, from);
  const end = skipElements(scanner, from);
  return end === null || restNamesMessages(scanner) ? null : end;
}

/** From just after an element: past `, element` pairs and the closing `]`; the end of the last element. */
function skipElements(scanner: JsonScanner, end: number): number | null {
  for (;;) {
    const byte = scanner.peek();
    if (byte === closeBracket) {
      scanner.position++;
      return end;
    }
    if (byte !== comma) return null;
    scanner.position++;
    const next = scanner.peek();
    if (next === closeBracket || next === comma || next === -1) return null;
    scanner.skipValue();
    end = scanner.position;
  }
}

/** Whether any key after the scanner's position, in the top-level object, is `messages`. */
function restNamesMessages(scanner: JsonScanner): boolean {
  for (;;) {
    const isMessages = nextKeyIsMessages(scanner);
    if (isMessages !== false) return isMessages === true;
    scanner.skipValue();
  }
}

/** Steps over the next key of the object and its colon: whether it is `messages`, or null at the object's end. */
function nextKeyIsMessages(scanner: JsonScanner): boolean | null {
  if (scanner.peek() === comma) scanner.position++;
  if (scanner.peek() !== quote) return null;
  const start = scanner.position;
  scanner.skipValue();
  const key = scanner.bytes.toString('utf8', start, scanner.position);
  if (scanner.peek() === colon) scanner.position++;
  try {
    return JSON.parse(key) === 'messages';
  } catch {
    // Not valid JSON after all: say yes, so the caller gives up on this text.
    return true;
  }
}
