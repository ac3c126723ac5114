import type { ScriptStep } from './script-step.js';

/** What the fake model answers, before it is shaped as a full response or as stream chunks. */
export interface AssistantReply {
  content: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: 'stop' | 'tool_calls';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** Rough token count: one token per four characters, as OpenAI's rule of thumb says. */
export function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/**
 * Turns a script step into a reply; `requestIndex` (from 0) numbers the default tool-call ids, and
 * `promptLength` is the length of the request's messages and tools as JSON (see promptLength).
 */
export function buildReply(step: ScriptStep, requestIndex: number, promptLength: number): AssistantReply {
  const toolCalls = (step.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${requestIndex + 1}_${index + 1}`,
    name: call.name,
    arguments: call.raw_arguments ?? JSON.stringify(call.arguments ?? {}),
  }));
  // Like the real API: text-only replies have content "", tool-call replies without text have null.
  const content = step.content ?? (toolCalls.length > 0 ? null : '');
  const promptTokens = step.usage?.prompt_tokens ?? estimateTokens(promptLength);
  const completionTokens =
    step.usage?.completion_tokens ??
    estimateTokens(((content ?? '') + toolCalls.map((call) => call.name + call.arguments).join('')).length);
  return {
    content,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** What the prompt-token estimate counts: the request's messages and tools, as JSON. */
export function promptLength(requestBody: unknown): number {
  const body = requestBody as { messages?: unknown; tools?: unknown };
  return (JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? [])).length;
}
