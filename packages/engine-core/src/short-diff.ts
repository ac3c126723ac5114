/** Characters of context shown on each side of the first difference. */
const CONTEXT = 60;

function excerpt(text: string, from: number, to: number): string {
  const start = Math.max(0, from - CONTEXT);
  // A long difference is cut: the point is where it starts.
  const end = Math.min(text.length, Math.min(to, from + 4 * CONTEXT) + CONTEXT);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`.replaceAll('\n', '\\n');
}

/**
 * A short diff of two texts for a person: where they first differ and a little of each around it
 * (`-` the recorded text, `+` the new one). Empty when they are equal.
 */
export function shortDiff(recorded: string, found: string): string {
  if (recorded === found) return '';
  let first = 0;
  const shorter = Math.min(recorded.length, found.length);
  while (first < shorter && recorded.charCodeAt(first) === found.charCodeAt(first)) first += 1;
  // The common end, not reaching back over the first difference.
  let tail = 0;
  while (tail < shorter - first && recorded.charCodeAt(recorded.length - 1 - tail) === found.charCodeAt(found.length - 1 - tail)) {
    tail += 1;
  }
  return [
    `at character ${first + 1}:`,
    `- ${excerpt(recorded, first, recorded.length - tail)}`,
    `+ ${excerpt(found, first, found.length - tail)}`,
  ].join('\n');
}
