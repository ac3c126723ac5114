/**
 * How deep a model's answer may nest its JSON. Chat completions nest about eight levels; a body nested
 * thousands deep parses, but every recursive walk after it (writing response.json, the journal) overflows
 * the stack, so it is refused before it is parsed.
 */
export const MAX_JSON_DEPTH = 256;

/** Whether the JSON text nests arrays and objects deeper than `max`, counting outside strings only. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * Whether a parsed value nests arrays and objects deeper than `max`, counted as `nestsDeeperThan` counts
 * its text. For JSON someone else parsed (an MCP server's, through its SDK): walked without recursion,
 * so any depth is safe, and a cycle counts as too deep.
 */
export function valueNestsDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<{ item: object; depth: number }> = [];
  if (typeof value === 'object' && value !== null) pending.push({ item: value, depth: 1 });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > max) return true;
    for (const child of Object.values(next.item)) {
      if (typeof child === 'object' && child !== null) pending.push({ item: child, depth: next.depth + 1 });
    }
  }
  return false;
}
