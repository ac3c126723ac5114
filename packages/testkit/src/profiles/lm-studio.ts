import { idChars, type ServerProfile } from '../server-profile.js';

export const lmStudio: ServerProfile = {
  name: 'lm-studio',
  title: 'LM Studio',
  baseUrl: 'http://localhost:1234/v1',
  key: 'none',
  sendReasoning: false,
  quirks: [
    'no key needed',
    'reasoning in `reasoning_content` (the "separate reasoning" setting)',
    'tool-call ids are digits; a `stats` object',
  ],
  sources: ['https://lmstudio.ai/docs/developer/openai-compat', 'https://lmstudio.ai/docs/developer/core/server'],
  dialect: {
    completionId: (request) => `chatcmpl-${idChars(request, 20).toLowerCase()}`,
    toolCallId: (request, call) => String(100_000_000 + ((request * 7919 + call * 104_729) % 900_000_000)),
    reasoning: 'reasoning_content',
    usage: 'plain',
    top: { system_fingerprint: 'local-model', stats: {} },
    choice: { logprobs: null },
    stream: { opening: 'role-empty', toolCalls: 'pieces', toolFinishReason: 'tool_calls', usage: 'when-asked' },
  },
};
