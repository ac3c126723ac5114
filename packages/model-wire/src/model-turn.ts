/** A tool call as the engine records it and sends it back: always a usable id, a name and arguments as text. */
export interface WireToolCall {
  /** The id used everywhere in the conversation: the server's, or one the engine assigned. */
  id: string;
  /** Present when the engine assigned `id`: what the server sent instead (null when it sent none). */
  server_id?: string | null;
  name: string;
  /** The arguments as JSON text, exactly as sent back to the model. */
  arguments: string;
  /** `object` when the server sent the arguments as a JSON object rather than text (`arguments` is its JSON). */
  arguments_type?: 'object';
  /** What the server attached to the call besides id, type and function (Gemini's `extra_content`); sent back with it. */
  extra?: Record<string, unknown>;
  /** The call cannot be run (no function, no name): the observation the model gets instead of a result. */
  problem?: string;
}

/** Token counts as the server reported them; the details are there only when the server gave them. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens served from the provider's cache (`prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`). */
  cached_tokens?: number;
  /** Completion tokens spent on reasoning (`completion_tokens_details.reasoning_tokens`). */
  reasoning_tokens?: number;
}

/** Where a server put the model's reasoning, so that it can be sent back under the same name. */
export type ReasoningField = 'reasoning_content' | 'reasoning';

/** One model answer after normalisation: what the engine journals and acts on. */
export interface ModelTurn {
  content: string | null;
  /** The model's reasoning as text, when the server sent any. */
  reasoning?: string;
  reasoning_field?: ReasoningField;
  /** OpenRouter's structured reasoning, kept as sent. */
  reasoning_details?: unknown[];
  refusal?: string;
  tool_calls: WireToolCall[];
  finish_reason: string | null;
  usage?: WireUsage;
  /** What normalisation changed, one sentence each (empty when the answer had the official shape). */
  normalised: string[];
}
