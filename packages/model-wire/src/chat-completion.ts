// The Chat Completions shapes Delta sends and reads, written by hand from OpenAI's API reference: only the
// fields Delta uses, so that neither this package nor the engine installs the openai SDK for its types.
// An SDK's ChatCompletion is assignable to ChatCompletion (chat-completion.test.ts checks it).

/** A function call of the model, as a completion carries it and an assistant message sends it back. */
export interface ChatCompletionFunctionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A call of a custom (free-form) tool: the engine offers none, but a server's answer may hold one. */
export interface ChatCompletionCustomToolCall {
  id: string;
  type: 'custom';
  custom: { name: string; input: string };
}

export type ChatCompletionToolCall = ChatCompletionFunctionToolCall | ChatCompletionCustomToolCall;

/** A text part of a message's content (the engine sends text only). */
export interface ChatCompletionTextPart {
  type: 'text';
  text: string;
}

export type ChatCompletionMessageParam =
  | { role: 'system' | 'developer'; content: string | ChatCompletionTextPart[]; name?: string }
  | { role: 'user'; content: string | ChatCompletionTextPart[]; name?: string }
  | { role: 'assistant'; content?: string | ChatCompletionTextPart[] | null; tool_calls?: ChatCompletionFunctionToolCall[]; name?: string }
  | { role: 'tool'; content: string | ChatCompletionTextPart[]; tool_call_id: string };

/** A function the model may call: its name, what it does, and its parameters as a JSON Schema. */
export interface ChatCompletionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

/** A request body: the fields the engine sets, and every other parameter (`temperature`, `llm.extra_body`...) as written. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  [parameter: string]: unknown;
}

/** Token counts, with the details a server may add (cached prompt tokens, reasoning tokens). */
export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** The model's message in an answer. Servers add fields (`reasoning_content`...): normaliseCompletion reads those. */
export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: ChatCompletionToolCall[];
}

export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: string | null;
}

/** A non-streamed answer, or a streamed one assembled into this shape, as the server sent it. */
export interface ChatCompletion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: ChatCompletionUsage;
}
