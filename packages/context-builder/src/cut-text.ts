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
  return text.slice(0, safeEnd(text, low)) + marker;
}

/** Never cut between the two halves of a surrogate pair. */
function safeEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return end;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
