import { idChars, type ServerProfile } from '../server-profile.js';

export const liteLlm: ServerProfile = {
  name: 'litellm',
  title: 'LiteLLM proxy',
  baseUrl: 'http://localhost:4000/v1',
  key: 'required',
  sendReasoning: false,
  quirks: [
    'reasoning in `reasoning_content` plus `thinking_blocks` (Anthropic models behind it)',
    '`function_call: null` and `provider_specific_fields` on messages',
    'errors during a stream arrive as a `data:` event with an `error` field',
  ],
  sources: ['https://docs.litellm.ai/docs/reasoning_content', 'https://docs.litellm.ai/docs/proxy/user_keys'],
  dialect: {
    completionId: (request) => `chatcmpl-${idChars(request, 8)}-${idChars(request + 1, 4)}-${idChars(request + 2, 12)}`,
    toolCallId: (request, call) => `toolu_${idChars(request * 16 + call, 24)}`,
    reasoning: 'litellm',
    usage: 'details',
    top: { system_fingerprint: null },
    message: { function_call: null, provider_specific_fields: {} },
    stream: { opening: 'role-empty', toolCalls: 'pieces', toolFinishReason: 'tool_calls', usage: 'when-asked' },
  },
};
