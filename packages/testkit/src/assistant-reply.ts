import type { ScriptStep } from './script-step.js';

/** One tool call of a reply, with the shapes real servers get wrong kept as the script asked. */
export interface ReplyToolCall {
  /** undefined: the call is sent without an id. */
  id: string | undefined;
  name: string | null;
  /** The arguments as JSON text. */
  arguments: string;
  /** Send the arguments as this JSON object instead of text. */
  argumentsObject?: Record<string, unknown>;
  /** Send the call without a `function` object. */
  noFunction?: boolean;
}

export interface ReplyUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

/** What the fake model answers, before a server profile shapes it as a full response or as stream chunks. */
export interface AssistantReply {
  content: string | null;
  reasoning: string | undefined;
  toolCalls: ReplyToolCall[];
  finishReason: 'stop' | 'tool_calls';
  usage: ReplyUsage;
}

/** Rough token count: one token per four characters, as OpenAI's rule of thumb says. */
export function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/** A tool-call id in the style of the server being imitated, for request `requestIndex` (from 0) and call `callIndex`. */
export type ToolCallIdStyle = (requestIndex: number, callIndex: number) => string;

const defaultIds: ToolCallIdStyle = (requestIndex, callIndex) => `call_${requestIndex + 1}_${callIndex + 1}`;

/**
 * Turns a script step into a reply; `requestIndex` (from 0) numbers the default tool-call ids, and
 * `promptLength` is the length of the request's messages and tools as JSON (see promptLength).
 */
export function buildReply(
  step: ScriptStep,
  requestIndex: number,
  promptLength: number,
  ids: ToolCallIdStyle = defaultIds,
): AssistantReply {
  const toolCalls = (step.tool_calls ?? []).map(
    (call, index): ReplyToolCall => ({
      id: call.omit_id ? undefined : (call.id ?? ids(requestIndex, index)),
      name: call.name,
      arguments: call.raw_arguments ?? JSON.stringify(call.arguments ?? {}),
      ...(call.arguments_as_object ? { argumentsObject: call.arguments ?? {} } : {}),
      ...(call.no_function ? { noFunction: true } : {}),
    }),
  );
  // Like the real API: text-only replies have content "", tool-call replies without text have null.
  const content = step.content ?? (toolCalls.length > 0 ? null : '');
  const promptTokens = step.usage?.prompt_tokens ?? estimateTokens(promptLength);
  const completionTokens =
    step.usage?.completion_tokens ??
    estimateTokens(
      ((content ?? '') + (step.reasoning ?? '') + toolCalls.map((call) => (call.name ?? '') + call.arguments).join('')).length,
    );
  return {
    content,
    reasoning: step.reasoning,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(step.usage?.cached_tokens !== undefined ? { cached_tokens: step.usage.cached_tokens } : {}),
      ...(step.usage?.reasoning_tokens !== undefined ? { reasoning_tokens: step.usage.reasoning_tokens } : {}),
    },
  };
}

/** What the prompt-token estimate counts: the request's messages and tools, as JSON. */
export function promptLength(requestBody: unknown): number {
  const body = requestBody as { messages?: unknown; tools?: unknown };
  return (JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? [])).length;
}
