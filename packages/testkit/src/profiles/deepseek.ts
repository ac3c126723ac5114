import { idChars, type ServerProfile } from '../server-profile.js';

function hasReasoning(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'reasoning_content' in message;
}

export const deepSeek: ServerProfile = {
  name: 'deepseek',
  title: 'DeepSeek',
  baseUrl: 'https://api.deepseek.com/v1',
  key: 'required',
  sendReasoning: false,
  quirks: [
    'reasoning in `reasoning_content` (deepseek-reasoner); a request that sends it back is refused with HTTP 400',
    'blank lines before a non-streamed body and `: keep-alive` comments in a stream while the server is busy',
    'usage with `prompt_cache_hit_tokens` and `prompt_cache_miss_tokens`',
  ],
  sources: [
    'https://api-docs.deepseek.com/guides/reasoning_model',
    'https://api-docs.deepseek.com/guides/kv_cache',
    'https://api-docs.deepseek.com/quick_start/rate_limit',
  ],
  dialect: {
    completionId: (request) => `${idChars(request, 8)}-${idChars(request + 1, 4)}-${idChars(request + 2, 12)}`.toLowerCase(),
    toolCallId: (request, call) => `call_0${call}_${idChars(request * 16 + call, 24)}`,
    reasoning: 'reasoning_content',
    usage: 'deepseek',
    top: { system_fingerprint: 'fp_8802369eaa_prod0623_fp8_kvcache' },
    choice: { logprobs: null },
    stream: { opening: 'role-empty', toolCalls: 'pieces', toolFinishReason: 'tool_calls', usage: 'when-asked', keepAlive: ': keep-alive' },
    jsonPrefix: '\n\n',
    refuse(body) {
      const messages = Array.isArray(body.messages) ? body.messages : [];
      const index = messages.findIndex(hasReasoning);
      return index < 0
        ? null
        : `The reasoning_content of message ${index} is not allowed in the input: remove it from the assistant messages you send back.`;
    },
  },
};
