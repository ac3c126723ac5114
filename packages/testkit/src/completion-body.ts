import type { AssistantReply, ReplyToolCall, ReplyUsage } from './assistant-reply.js';
import type { ServerDialect } from './server-dialect.js';

export interface CompletionIdentity {
  /** The request this answers, from 0. */
  requestIndex: number;
  id: string;
  created: number;
  model: string;
}

type Json = Record<string, unknown>;

function reasoningFields(dialect: ServerDialect, text: string | undefined): Json {
  if (text === undefined) return {};
  switch (dialect.reasoning) {
    case 'none':
      return {};
    case 'openrouter':
      return { reasoning: text, reasoning_details: [{ type: 'reasoning.text', text, format: 'unknown', index: 0 }] };
    case 'litellm':
      return { reasoning_content: text, thinking_blocks: [{ type: 'thinking', thinking: text, signature: 'fake-signature' }] };
    default:
      return { [dialect.reasoning]: text };
  }
}

function usageBody(dialect: ServerDialect, usage: ReplyUsage): Json {
  const { prompt_tokens, completion_tokens, total_tokens } = usage;
  const body: Json = { prompt_tokens, completion_tokens, total_tokens };
  if (dialect.usage === 'plain') return body;
  if (usage.cached_tokens !== undefined) body.prompt_tokens_details = { cached_tokens: usage.cached_tokens };
  if (usage.reasoning_tokens !== undefined) body.completion_tokens_details = { reasoning_tokens: usage.reasoning_tokens };
  if (dialect.usage === 'deepseek') {
    body.prompt_cache_hit_tokens = usage.cached_tokens ?? 0;
    body.prompt_cache_miss_tokens = prompt_tokens - (usage.cached_tokens ?? 0);
  }
  return body;
}

function functionOf(call: ReplyToolCall, argumentsText: string): Json {
  return { name: call.name, arguments: call.argumentsObject ?? argumentsText };
}

/** A tool call as a message carries it. */
function messageCall(call: ReplyToolCall, index: number, extra: Json, withIndex: boolean): Json {
  return {
    ...(withIndex ? { index } : {}),
    ...(call.id !== undefined ? { id: call.id } : {}),
    type: 'function',
    ...(call.noFunction ? {} : { function: functionOf(call, call.arguments) }),
    ...extra,
  };
}

/** The non-streamed `chat.completion` object, in the server's dialect. */
export function completionBody(reply: AssistantReply, identity: CompletionIdentity, dialect: ServerDialect): Json {
  const { requestIndex } = identity;
  const message: Json = { role: 'assistant', content: reply.content, ...reasoningFields(dialect, reply.reasoning), ...dialect.message };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call, index) =>
      messageCall(call, index, dialect.toolCallExtra?.(requestIndex, index) ?? {}, dialect.indexInMessageToolCalls === true),
    );
  }
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, ...dialect.choice, finish_reason: reply.finishReason }],
    usage: usageBody(dialect, reply.usage),
    ...dialect.top,
  };
}

/** Splits text into small pieces, so a client must really reassemble the stream. */
export function splitIntoPieces(text: string, size = 8): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

function toolCallDeltas(dialect: ServerDialect, call: ReplyToolCall, index: number, requestIndex: number): Json[] {
  const style = dialect.stream.toolCalls;
  const extra = dialect.toolCallExtra?.(requestIndex, index) ?? {};
  if (style !== 'pieces' || call.argumentsObject !== undefined || call.noFunction) {
    // Gemini streams each call whole, without an index and with an empty id.
    const gemini = style === 'whole-no-index';
    return [
      {
        ...(gemini ? {} : { index }),
        ...(call.id !== undefined ? { id: gemini ? '' : call.id } : {}),
        type: 'function',
        ...(call.noFunction ? {} : { function: functionOf(call, call.arguments) }),
        ...extra,
      },
    ];
  }
  const deltas: Json[] = [
    { index, ...(call.id !== undefined ? { id: call.id } : {}), type: 'function', function: { name: call.name, arguments: '' }, ...extra },
  ];
  for (const piece of splitIntoPieces(call.arguments)) deltas.push({ index, function: { arguments: piece } });
  return deltas;
}

/**
 * The `chat.completion.chunk` objects of this reply, in the server's dialect: an opening delta, reasoning
 * then content pieces, the tool calls, a finish chunk, and the usage (in its own last chunk with empty
 * choices when `includeUsage`, or in the finish chunk where the server always sends it).
 */
export function streamChunks(reply: AssistantReply, identity: CompletionIdentity, includeUsage: boolean, dialect: ServerDialect): Json[] {
  const { stream } = dialect;
  const usageWhenAsked = stream.usage === 'when-asked' && includeUsage;
  const roleEach = stream.opening === 'role-every-chunk';
  const chunk = (delta: Json, finishReason: string | null = null, extra: Json = {}): Json => ({
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, delta: roleEach ? { role: 'assistant', ...delta } : delta, ...dialect.choice, finish_reason: finishReason }],
    ...(usageWhenAsked ? { usage: null } : {}),
    ...dialect.top,
    ...extra,
  });
  const chunks: Json[] = [];
  if (!roleEach) {
    const opening: Json = { role: 'assistant', content: stream.opening === 'role-null' || reply.content === null ? null : '' };
    if (dialect.message && 'refusal' in dialect.message) opening.refusal = null;
    chunks.push(chunk(opening));
  }
  const reasoning = reasoningFields(dialect, reply.reasoning);
  for (const [field, value] of Object.entries(reasoning)) {
    if (typeof value === 'string') for (const piece of splitIntoPieces(value)) chunks.push(chunk({ [field]: piece }));
    else chunks.push(chunk({ [field]: value }));
  }
  for (const piece of splitIntoPieces(reply.content ?? '')) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    for (const delta of toolCallDeltas(dialect, call, index, identity.requestIndex)) chunks.push(chunk({ tool_calls: [delta] }));
  });
  const finishReason = reply.finishReason === 'tool_calls' ? stream.toolFinishReason : reply.finishReason;
  const usage = usageBody(dialect, reply.usage);
  chunks.push(chunk({}, finishReason, stream.usage === 'in-finish-chunk' ? { usage } : {}));
  if (usageWhenAsked) {
    chunks.push({
      id: identity.id,
      object: 'chat.completion.chunk',
      created: identity.created,
      model: identity.model,
      choices: [],
      usage,
      ...dialect.top,
    });
  }
  return chunks;
}
