import { isMap, isNode, type Document, type LineCounter } from 'yaml';

export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * Where the value at `path` (or, with `key`, that key of the mapping at `path`) starts in the YAML text.
 * Falls back to the nearest ancestor that exists.
 */
export function positionOf(
  document: Document,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
  key?: string,
): SourcePosition | undefined {
  for (let length = path.length; length >= 0; length -= 1) {
    const node = document.getIn(path.slice(0, length) as unknown[], true);
    if (!isNode(node)) continue;
    if (key !== undefined && length === path.length && isMap(node)) {
      const pair = node.items.find((item) => isNode(item.key) && (item.key as { value?: unknown }).value === key);
      const range = pair && isNode(pair.key) ? pair.key.range : undefined;
      if (range) return toPosition(lineCounter, range[0]);
    }
    if (node.range) return toPosition(lineCounter, node.range[0]);
  }
  return undefined;
}

function toPosition(lineCounter: LineCounter, offset: number): SourcePosition {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
