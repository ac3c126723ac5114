/** Characters per piece: a piece's JSON stays an ordinary heap object, which V8 frees young, not a large one. */
const PIECE_CHARS = 32 * 1024;

/**
 * `JSON.stringify(text)`, as pieces whose concatenation is exactly that text: a large string (a tool's
 * 30 MB stdin) can then be written to a stream without its JSON being made whole, a second copy of it.
 * A piece never ends between the two halves of a surrogate pair, which JSON.stringify would escape apart.
 */
export function* jsonStringPieces(text: string): Generator<string> {
  if (text.length <= PIECE_CHARS) {
    yield JSON.stringify(text);
    return;
  }
  yield '"';
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + PIECE_CHARS, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    yield JSON.stringify(text.slice(start, end)).slice(1, -1);
    start = end;
  }
  yield '"';
}
