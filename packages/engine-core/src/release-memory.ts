/** Texts that add up to this many characters are large enough to collect their garbage at once. */
const LARGE_CHARS = 4 * 1024 * 1024;

/**
 * V8's full collection, when the host process offers it (`node --expose-gc`, which the `delta` binary
 * passes). A library changes nothing of its host: no V8 flag is set here, so a program that imports the
 * engine without the flag simply gets no early collection.
 */
function collector(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as () => void) : undefined;
}

/**
 * After a step of the loop that handled a large text (a think step: building a large request, reading
 * and recording a large answer; an act step: a call with large arguments or a large output), the copies it left
 * behind (the body's text, the journal line, the tool's stdin, the messages' JSON) are collected at once
 * rather than when V8 next sees fit, which may be after the next step has made its own: a 30 MB answer
 * then costs the engine a few copies of itself, not all of them at once
 * (docs/decisions/large-texts-in-memory.md). A full collection takes tens of milliseconds, against
 * seconds of handling such a text. Each effect of the loop (think, recordAnswer, act) calls it once, at its end.
 */
export function releaseAfterLarge(chars: number): void {
  if (chars < LARGE_CHARS) return;
  collector()?.();
}
