/** One line of at most `limit` characters, for progress output. */
export function summarise(text: string, limit = 120): string {
  // Only the start is needed: a long text (a large answer) is not copied whole to be flattened.
  const start = text.length > limit * 4 + 64 ? text.slice(0, limit * 4 + 64) : text;
  const flat = start.replace(/\s+/g, ' ').trim();
  return flat.length > limit || start.length < text.length ? `${flat.slice(0, limit)}...` : flat;
}
