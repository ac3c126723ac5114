import { safeParseJson } from '@delta/errors';
import type { EmbeddedText } from './collect-run.js';
import { escapeHtml as esc } from './escape-html.js';

/** One message of a chat-completions request, as far as the page needs it; anything else stays in the raw bytes. */
interface WireMessage {
  role?: unknown;
  content?: unknown;
  name?: unknown;
  tool_call_id?: unknown;
  tool_calls?: unknown;
}

/** Text of a message's content: a string, or the text parts of an array (other parts named by type). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((part) => {
      if (part && typeof part === 'object' && 'text' in part && typeof part.text === 'string') return part.text;
      const type = part && typeof part === 'object' && 'type' in part ? String(part.type) : typeof part;
      return `[${type} part]`;
    })
    .join('\n');
}

function renderToolCalls(calls: unknown): string {
  if (!Array.isArray(calls) || calls.length === 0) return '';
  const items = calls.map((call) => {
    const fn = call && typeof call === 'object' && 'function' in call ? (call.function as { name?: unknown; arguments?: unknown }) : {};
    const id = call && typeof call === 'object' && 'id' in call ? String(call.id) : '';
    const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? null);
    return `<div class="msg-call"><span class="tool-name">${esc(String(fn.name ?? '?'))}</span><code>${esc(args)}</code> <span class="muted">${esc(id)}</span></div>`;
  });
  return items.join('');
}

function renderMessage(message: WireMessage): string {
  const role = typeof message.role === 'string' ? message.role : 'unknown';
  const label = role === 'tool' && message.tool_call_id !== undefined ? `tool result for ${String(message.tool_call_id)}` : role;
  const text = contentText(message.content);
  const body = text === undefined || text === '' ? '' : `<pre class="msg-text">${esc(text)}</pre>`;
  return `<div class="msg role-${esc(role.replace(/[^a-z_-]/gi, ''))}"><div class="msg-role">${esc(label)}</div>${body}${renderToolCalls(message.tool_calls)}</div>`;
}

/**
 * A model call's request as the conversation it carried: each message with its role, the tool calls an
 * assistant message made and the call a tool result answers; then which tools were offered. The exact
 * bytes are shown beside it by the caller, one click away.
 */
export function renderRequestChat(request: EmbeddedText | undefined): string {
  if (!request) return '';
  if (request.truncatedFrom !== undefined) {
    return `<div class="muted">The request is too large to show as a conversation here; the raw bytes below are cut, ${esc(request.file)} has them whole.</div>`;
  }
  // The request file is under .delta/, which a tool can write: any text at all must give a page.
  const parsed = safeParseJson(request.text, request.file);
  if (!parsed.success) return '<div class="muted">The request is not JSON; see the raw bytes below.</div>';
  if (parsed.data === null || typeof parsed.data !== 'object' || Array.isArray(parsed.data)) {
    return '<div class="muted">The request is not a JSON object; see the raw bytes below.</div>';
  }
  const body = parsed.data as { messages?: unknown; tools?: unknown; model?: unknown };
  const messages = Array.isArray(body.messages)
    ? (body.messages as unknown[]).map((message) => (message !== null && typeof message === 'object' ? (message as WireMessage) : {}))
    : [];
  const tools = Array.isArray(body.tools)
    ? body.tools.map((tool: { function?: { name?: unknown } }) => String(tool?.function?.name ?? '?'))
    : [];
  const facts = [
    typeof body.model === 'string' ? `model ${body.model}` : undefined,
    `${messages.length} message${messages.length === 1 ? '' : 's'}`,
    tools.length > 0 ? `tools offered: ${tools.join(', ')}` : 'no tools offered',
  ].filter(Boolean);
  return `<div class="chat"><div class="muted">What the model was sent: ${esc(facts.join(' · '))}</div>${messages.map(renderMessage).join('')}</div>`;
}
