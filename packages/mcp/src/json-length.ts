/**
 * About how many characters `value` takes as JSON text (escapes in its strings not counted), counted
 * without writing it and without recursion, so that any depth is safe. Counting stops once past `stop`.
 */
export function jsonLength(value: unknown, stop: number): number {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && length <= stop) {
    const item = pending.pop();
    if (typeof item === 'string') length += item.length + 2;
    else if (Array.isArray(item)) {
      length += 1 + Math.max(item.length, 1);
      for (const child of item) pending.push(child);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      length += 1 + Math.max(entries.length, 1);
      for (const [key, child] of entries) {
        length += key.length + 3;
        pending.push(child);
      }
    } else length += String(item).length;
  }
  return length;
}
