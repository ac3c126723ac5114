import { idChars, type ServerProfile } from '../server-profile.js';

export const anthropic: ServerProfile = {
  name: 'anthropic',
  title: "Anthropic (Claude's OpenAI SDK compatibility)",
  baseUrl: 'https://api.anthropic.com/v1',
  key: 'required',
  sendReasoning: false,
  quirks: [
    'extended thinking is enabled through `extra_body: {thinking: ...}`, but the reasoning is not returned',
    'tool-call ids `toolu_...`; HTTP 529 when overloaded',
  ],
  sources: ['https://docs.anthropic.com/en/api/openai-sdk'],
  dialect: {
    completionId: (request) => `msg_${idChars(request, 24)}`,
    toolCallId: (request, call) => `toolu_${idChars(request * 16 + call, 24)}`,
    reasoning: 'none',
    usage: 'plain',
    stream: { opening: 'role-empty', toolCalls: 'pieces', toolFinishReason: 'tool_calls', usage: 'when-asked' },
  },
};
