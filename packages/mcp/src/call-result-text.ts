import type { McpCallResult } from './mcp-types.js';

/** Binary content is never shown to the model as base64: it says what it was and where it is kept. */
function describeBinary(kind: string, mimeType: unknown, data: unknown): string {
  const bytes = typeof data === 'string' ? Math.floor((data.length * 3) / 4) : 0;
  return `[${kind}${typeof mimeType === 'string' && mimeType !== '' ? ` (${mimeType})` : ''}, about ${bytes} bytes: not shown; the whole response is recorded]`;
}

/** The text of one content item, or what it was when it has none the model can read. */
function itemText(item: Record<string, unknown>): string {
  switch (item.type) {
    case 'text':
      if (typeof item.text === 'string') return item.text;
      break;
    case 'image':
    case 'audio':
      return describeBinary(item.type, item.mimeType, item.data);
    case 'resource': {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === 'string') return resource.text;
      return describeBinary(`resource ${String(resource.uri)}`, resource.mimeType, resource.blob);
    }
    case 'resource_link':
      return `[resource link: ${String(item.uri)}${typeof item.name === 'string' && item.name !== '' ? ` (${item.name})` : ''}]`;
  }
  return `[content of type ${JSON.stringify(item.type)}: see the recorded response]`;
}

/**
 * The text the model is given for a server's answer: each text content as it is, other content named.
 * Structured content stands in when the server gave no content at all. Nothing is dropped silently.
 */
export function callResultText(result: McpCallResult): string {
  const parts = (result.content ?? []).map((item) => itemText(item as Record<string, unknown>));
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  return text === '' ? '(no output)' : text;
}
