import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Binary content is never shown to the model as base64: it says what it was and where it is kept. */
function describeBinary(kind: string, mimeType: string | undefined, data: string): string {
  const bytes = Math.floor((data.length * 3) / 4);
  return `[${kind}${mimeType ? ` (${mimeType})` : ''}, about ${bytes} bytes: not shown; the whole response is recorded]`;
}

/**
 * The text the model is given for a server's answer: each text content as it is, other content named.
 * Structured content stands in when the server gave no content at all. Nothing is dropped silently.
 */
export function callResultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        parts.push(item.text);
        break;
      case 'image':
      case 'audio':
        parts.push(describeBinary(item.type, item.mimeType, item.data));
        break;
      case 'resource': {
        const resource = item.resource;
        parts.push('text' in resource ? resource.text : describeBinary(`resource ${resource.uri}`, resource.mimeType, resource.blob));
        break;
      }
      case 'resource_link':
        parts.push(`[resource link: ${item.uri}${item.name ? ` (${item.name})` : ''}]`);
        break;
      default:
        parts.push(`[content of type ${JSON.stringify((item as { type?: unknown }).type)}: see the recorded response]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  return text === '' ? '(no output)' : text;
}
