import type { ToolCallIdStyle } from './assistant-reply.js';

/**
 * How one OpenAI-compatible server shapes its answers. The fake model's profiles are dialects: the same
 * scripted reply, sent the way that server documents (and is seen) sending it.
 */
export interface ServerDialect {
  /** The `id` of the completion answering request `requestIndex` (from 0). */
  completionId(requestIndex: number): string;
  /** Tool-call ids when the script names none. */
  toolCallId: ToolCallIdStyle;
  /**
   * Where reasoning goes: `reasoning_content` (DeepSeek, vLLM before 0.11, llama.cpp, LM Studio),
   * `reasoning` (vLLM 0.11+, Ollama), `openrouter` (`reasoning` plus `reasoning_details`), `litellm`
   * (`reasoning_content` plus `thinking_blocks`), `none` (not returned: Anthropic's compatibility layer).
   */
  reasoning: 'reasoning_content' | 'reasoning' | 'openrouter' | 'litellm' | 'none';
  /** How usage is reported: `details` (cached and reasoning token details when known), `plain` (the three counts only), `deepseek` (details plus prompt_cache_hit/miss_tokens). */
  usage: 'details' | 'plain' | 'deepseek';
  /** Extra top-level fields of a completion or chunk. */
  top?: Record<string, unknown>;
  /** Extra fields of every choice. */
  choice?: Record<string, unknown>;
  /** Extra fields of a non-streamed message. */
  message?: Record<string, unknown>;
  /** Fields the server adds to each tool call (Gemini's `extra_content` with a thought signature). */
  toolCallExtra?(requestIndex: number, callIndex: number): Record<string, unknown>;
  /** Non-streamed tool calls carry `index` too (Ollama). */
  indexInMessageToolCalls?: boolean;
  stream: {
    /** The first delta: `{role, content: ""}` (OpenAI), `{role, content: null}` (llama.cpp), or the role in every delta (Ollama). */
    opening: 'role-empty' | 'role-null' | 'role-every-chunk';
    /** `pieces`: id and name, then argument pieces (OpenAI); `whole`: each call in one delta; `whole-no-index`: one delta, no index, empty id (Gemini). */
    toolCalls: 'pieces' | 'whole' | 'whole-no-index';
    /** The finish reason a streamed tool-call answer ends with (Gemini says `stop`). */
    toolFinishReason: 'tool_calls' | 'stop';
    /** Usage in its own last chunk when asked (`stream_options.include_usage`), or always in the finish chunk (llama.cpp). */
    usage: 'when-asked' | 'in-finish-chunk';
    /** An SSE comment the server sends to keep the connection open (`: OPENROUTER PROCESSING`). */
    keepAlive?: string;
  };
  /** Text sent before a non-streamed JSON body (DeepSeek keeps the connection alive with blank lines). */
  jsonPrefix?: string;
  /** Text after a non-streamed JSON body (Ollama ends it with a newline). */
  jsonSuffix?: string;
  /** The Content-Type of a JSON body. */
  jsonContentType?: string;
  /** Why the server would refuse a request (HTTP 400), beyond the OpenAI rules; null when it accepts it. */
  refuse?(body: Record<string, unknown>): string | null;
}
