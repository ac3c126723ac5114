/**
 * What the model is shown of an MCP server's answer: all of it up to `maxBytes`, otherwise its first and
 * last halves around a note that says where the whole response is.
 */
export function boundMcpText(text: string, maxBytes: number, wholeResponse: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const half = Math.floor(maxBytes / 2);
  // Cut on character boundaries: a split UTF-8 sequence decodes to a replacement character, which is dropped.
  const head = bytes
    .subarray(0, half)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const tail = bytes
    .subarray(bytes.length - half)
    .toString('utf8')
    .replace(/^\uFFFD/, '');
  const omitted = bytes.length - Buffer.byteLength(head) - Buffer.byteLength(tail);
  return `${head}\n[... ${omitted} bytes of the answer not shown; the whole response is in ${wholeResponse} ...]\n${tail}`;
}
