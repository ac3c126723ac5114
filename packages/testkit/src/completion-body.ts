import type { AssistantReply } from './assistant-reply.js';

export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

/** The non-streaming `chat.completion` object, shaped like the real API's. */
export function completionBody(reply: AssistantReply, identity: CompletionIdentity): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.content, refusal: null };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
    system_fingerprint: null,
  };
}

/** Splits text into small pieces, so a client must really reassemble the stream. */
export function splitIntoPieces(text: string, size = 8): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

/**
 * The `chat.completion.chunk` objects the real API streams for this reply: a role chunk, content deltas,
 * for each tool call a chunk with id and name then argument deltas, a finish chunk, and with
 * `includeUsage` a last chunk with empty choices and the usage (every other chunk then has `usage: null`).
 */
export function streamChunks(reply: AssistantReply, identity: CompletionIdentity, includeUsage: boolean): Array<Record<string, unknown>> {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> => ({
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks = [chunk({ role: 'assistant', content: reply.content === null ? null : '', refusal: null })];
  for (const piece of splitIntoPieces(reply.content ?? '')) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of splitIntoPieces(call.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, reply.finishReason));
  if (includeUsage) {
    chunks.push({
      id: identity.id,
      object: 'chat.completion.chunk',
      created: identity.created,
      model: identity.model,
      system_fingerprint: null,
      choices: [],
      usage: reply.usage,
    });
  }
  return chunks;
}
