import { idChars, type ServerProfile } from '../server-profile.js';

export const openRouter: ServerProfile = {
  name: 'openrouter',
  title: 'OpenRouter',
  baseUrl: 'https://openrouter.ai/api/v1',
  key: 'required',
  sendReasoning: false,
  quirks: [
    'SSE comments `: OPENROUTER PROCESSING` to keep the connection open',
    'reasoning in `reasoning` plus structured `reasoning_details`',
    'errors during generation arrive as a `data:` event with an `error` field after HTTP 200',
    'usage with `prompt_tokens_details.cached_tokens`, `completion_tokens_details.reasoning_tokens` and `cost`',
  ],
  sources: [
    'https://openrouter.ai/docs/api-reference/streaming',
    'https://openrouter.ai/docs/api-reference/errors',
    'https://openrouter.ai/docs/use-cases/reasoning-tokens',
  ],
  dialect: {
    completionId: (request) => `gen-${1_778_031_306 + request}-${idChars(request, 20)}`,
    toolCallId: (request, call) => `call_${idChars(request * 16 + call, 24)}`,
    reasoning: 'openrouter',
    usage: 'details',
    top: { provider: 'OpenAI', system_fingerprint: null },
    choice: { logprobs: null, native_finish_reason: 'stop' },
    message: { refusal: null },
    stream: {
      opening: 'role-empty',
      toolCalls: 'pieces',
      toolFinishReason: 'tool_calls',
      usage: 'when-asked',
      keepAlive: ': OPENROUTER PROCESSING',
    },
  },
};
