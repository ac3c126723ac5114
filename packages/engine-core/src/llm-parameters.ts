import { z } from 'zod';
import { unknownKeyVerdict, type UnknownKey, type UnknownKeyVerdict } from '@delta/yaml-config';

/**
 * The Chat Completions request parameters the engine knows (those of the openai SDK's
 * `ChatCompletionCreateParams`), each sent as written. The few the engine checks are typed; the server
 * checks the rest. `messages` and `tools` are the engine's own and are not among them.
 */
export const CHAT_COMPLETION_PARAMETERS = {
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  n: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  stream: z.boolean().optional(),
  frequency_penalty: z.unknown().optional(),
  presence_penalty: z.unknown().optional(),
  logit_bias: z.unknown().optional(),
  logprobs: z.unknown().optional(),
  top_logprobs: z.unknown().optional(),
  stop: z.unknown().optional(),
  stream_options: z.unknown().optional(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.unknown().optional(),
  response_format: z.unknown().optional(),
  reasoning_effort: z.unknown().optional(),
  verbosity: z.unknown().optional(),
  modalities: z.unknown().optional(),
  audio: z.unknown().optional(),
  prediction: z.unknown().optional(),
  metadata: z.unknown().optional(),
  store: z.unknown().optional(),
  service_tier: z.unknown().optional(),
  user: z.unknown().optional(),
  safety_identifier: z.unknown().optional(),
  prompt_cache_key: z.unknown().optional(),
  prompt_cache_options: z.unknown().optional(),
  prompt_cache_retention: z.unknown().optional(),
  moderation: z.unknown().optional(),
  web_search_options: z.unknown().optional(),
};

/** Request fields the engine fills itself: never from `llm:` or `llm.extra_body`. */
export const ENGINE_REQUEST_FIELDS: readonly string[] = ['model', 'messages', 'tools', 'functions', 'function_call'];

const EXTRA_BODY_HINT = 'A parameter only your server knows goes under llm.extra_body, which is merged into the request as written.';

/**
 * The key of three letters or fewer one edit away (`pas` for `pass`, `st` for `set`): sandbox.env's keys
 * are that short, where suggestName asks more of a name.
 */
function closeShortKey(name: string, known: readonly string[]): string | undefined {
  const oneApart = (shorter: string, longer: string) =>
    [...longer].some((_, index) => longer.slice(0, index) + longer.slice(index + 1) === shorter);
  return known.find((candidate) =>
    candidate.length === name.length + 1
      ? oneApart(name, candidate)
      : candidate.length === name.length && [...name].filter((char, index) => char !== candidate[index]).length === 1,
  );
}

/**
 * agent.yaml's unknown keys: under `llm:`, a key is sent only when the engine knows it, so an unknown one
 * says where server-specific parameters go; the v1.1 names (`llm_config:`, `model_name:`) say to rename.
 */
export function describeAgentUnknownKey(key: UnknownKey): UnknownKeyVerdict {
  const where = key.path.join('.');
  if (where === '' && key.key === 'llm_config') {
    return {
      error: true,
      message: 'llm_config is the v1.1 name of llm',
      hint: 'Rename llm_config: to llm: (and its model_name: to model:), e.g.\nllm:\n  model: gpt-4o',
    };
  }
  if (where === 'sandbox.env') return unknownKeyVerdict({ ...key, suggestion: key.suggestion ?? closeShortKey(key.key, key.known) });
  if (where !== 'llm') return unknownKeyVerdict(key);
  if (key.key === 'model_name') {
    return { error: true, message: 'model_name is the v1.1 name of model', hint: 'Rename llm.model_name to llm.model.' };
  }
  if (ENGINE_REQUEST_FIELDS.includes(key.key)) {
    return {
      error: true,
      message: `"${key.key}" is filled in by the engine and cannot be set in llm:`,
      hint: `Remove llm.${key.key}: the engine sends the conversation as messages and the agent's tools (tools: in agent.yaml) itself.`,
    };
  }
  if (key.suggestion !== undefined) {
    return {
      error: true,
      message: `unknown key "${key.key}": did you mean "${key.suggestion}"?`,
      hint: `Rename llm.${key.key} to llm.${key.suggestion}. ${EXTRA_BODY_HINT}`,
    };
  }
  return {
    error: false,
    message: `"${key.key}" is not a Chat Completions parameter the engine knows, so it is not sent; put a parameter only your server knows under llm.extra_body (sent as written)`,
  };
}
