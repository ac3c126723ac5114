import type { ServerProfile } from '../server-profile.js';

/** The official API, and the fake model's default. */
export const openai: ServerProfile = {
  name: 'openai',
  title: 'OpenAI',
  baseUrl: 'https://api.openai.com/v1',
  key: 'required',
  sendReasoning: false,
  quirks: [],
  sources: ['https://platform.openai.com/docs/api-reference/chat'],
  dialect: {
    completionId: (request) => `chatcmpl-${request + 1}`,
    toolCallId: (request, call) => `call_${request + 1}_${call + 1}`,
    reasoning: 'reasoning_content',
    usage: 'details',
    top: { system_fingerprint: null },
    choice: { logprobs: null },
    message: { refusal: null },
    stream: { opening: 'role-empty', toolCalls: 'pieces', toolFinishReason: 'tool_calls', usage: 'when-asked' },
  },
};
