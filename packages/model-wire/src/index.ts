export { createModelWire } from './model-wire.js';
export type { ModelCall, ModelReply, ModelWire, ModelWireOptions, RetryNotice } from './model-wire.js';
export { createModelClient } from './model-client.js';
export type { CompleteOptions, ModelClient, ModelClientOptions } from './model-client.js';
export { modelClientFromOpenAI } from './openai-client.js';
export type { OpenAIClient } from './openai-client.js';
export { chatCompletionsUrl } from './chat-completions-url.js';
export type {
  ChatCompletion,
  ChatCompletionChoice,
  ChatCompletionCustomToolCall,
  ChatCompletionFunctionToolCall,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionRequest,
  ChatCompletionTextPart,
  ChatCompletionTool,
  ChatCompletionToolCall,
  ChatCompletionUsage,
} from './chat-completion.js';
export { normaliseCompletion, usageOf } from './normalise-completion.js';
export type { NormaliseOptions } from './normalise-completion.js';
export type { ModelTurn, ReasoningField, WireToolCall, WireUsage } from './model-turn.js';
export type { StreamDelta } from './stream-assembler.js';
// Kept here for @delta/mcp and @delta/engine, which still import it from this package; it lives in @delta/errors.
export { retryAfterMs } from './retry-policy.js';
export { ModelWireError, attemptFailure } from './wire-errors.js';
export type { AttemptFailure } from './wire-errors.js';
export { REDACTED, isRedactable } from './redact-key.js';
