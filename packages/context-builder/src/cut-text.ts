/**
 * The longest start of `text` that, followed by `marker`, passes `fits`; undefined when not even the
 * marker alone fits. `fits` must be monotonic in the length of the text, as token counts are.
 */
export function cutText(text: string, marker: string, fits: (candidate: string) => boolean): string | undefined {
  if (!fits(marker)) return undefined;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(text.slice(0, safeEnd(text, middle)) + marker)) low = middle;
    else high = middle - 1;
  }
  return text.slice(0, tidyEnd(text, safeEnd(text, low))) + marker;
}

/** Prefer to end at a line break, or at least between words, when one is near the cut. */
function tidyEnd(text: string, end: number): number {
  if (end >= text.length) return end;
  const line = text.lastIndexOf('\n', end - 1);
  if (line >= 0 && end - line <= 200) return line;
  const space = text.lastIndexOf(' ', end - 1);
  if (space >= 0 && end - space <= 40) return space;
  return end;
}

/** Never cut between the two halves of a surrogate pair. */
function safeEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return end;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
