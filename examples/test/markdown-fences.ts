/** A fenced code block of a Markdown page: where it opens and, when it does, where it closes (1-based lines). */
export interface Fence {
  info: string;
  openLine: number;
  closeLine: number | undefined;
  body: string;
  /** Lines inside that start like a closer of this fence but do not close it (too few markers, or text after them). */
  nearClosers: number[];
}

const OPENER = /^( *)(`{3,}|~{3,})(.*)$/;

/**
 * The fenced code blocks of a page, by CommonMark's rules: a fence is 3 or more backticks or tildes (a backtick
 * fence's info string has no backtick); it closes only with the same character, at least as many, followed by
 * nothing but spaces. Indentation: at most 3 spaces at the top level; inside a list the opener's own
 * indentation stands for the item's content column, so a closer may be indented up to 3 spaces more than it.
 */
export function scanFences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const fences: Fence[] = [];
  let open: { indent: number; marker: string; fence: Fence; body: string[] } | undefined;
  for (const [index, line] of lines.entries()) {
    if (open) {
      const closer = /^( *)(`{3,}|~{3,})[ \t]*$/.exec(line);
      const closes =
        closer !== null &&
        closer[2]![0] === open.marker[0] &&
        closer[2]!.length >= open.marker.length &&
        closer[1]!.length <= open.indent + 3;
      if (closes) {
        open.fence.closeLine = index + 1;
        open.fence.body = open.body.join('\n');
        open = undefined;
      } else {
        open.body.push(line);
        const near = /^ {0,3}(`{3,}|~{3,})/.exec(line);
        if (near && near[1]![0] === open.marker[0]) open.fence.nearClosers.push(index + 1);
      }
      continue;
    }
    const opener = OPENER.exec(line);
    if (!opener) continue;
    const [, indent, marker, info] = opener as unknown as [string, string, string, string];
    if (marker[0] === '`' && info.includes('`')) continue; // inline code such as ```a``` is not a fence
    const fence: Fence = { info: info.trim(), openLine: index + 1, closeLine: undefined, body: '', nearClosers: [] };
    fences.push(fence);
    open = { indent: indent.length, marker, fence, body: [] };
  }
  if (open) open.fence.body = open.body.join('\n');
  return fences;
}

/** A page that shows Markdown may hold fences inside a longer fence; any other code block may not. */
const MARKDOWN_INFO = /^(md|markdown)\b/;

/**
 * One line per fence that does not close where its author meant: one that never closes (the rest of the page
 * renders as code), and one holding a line that looks like its closer but is not (everything up to the real
 * closer, headings included, renders as code). Each names the page, the line and the fix.
 */
export function unclosedFences(markdown: string, page: string): string[] {
  const lines = markdown.split('\n');
  return scanFences(markdown).flatMap((fence) => {
    const marker = /^ *(`+|~+)/.exec(lines[fence.openLine - 1]!)![1]!;
    if (fence.closeLine === undefined) {
      return [
        `${page}:${fence.openLine}: the fence ${marker}${fence.info} never closes, so the rest of the page renders as code (close it with a line of ${marker})`,
      ];
    }
    if (fence.nearClosers.length === 0 || MARKDOWN_INFO.test(fence.info)) return [];
    const near = fence.nearClosers[0]!;
    return [
      `${page}:${fence.openLine}: the fence ${marker}${fence.info} is not closed by line ${near} (${JSON.stringify(lines[near - 1]!.trim())}): a fence closes only with a line of at least ${marker.length} ${marker[0]} and nothing else, so lines ${fence.openLine}-${fence.closeLine} render as code (open it with ${marker[0]!.repeat(3)} and put the closer alone on its line)`,
    ];
  });
}
