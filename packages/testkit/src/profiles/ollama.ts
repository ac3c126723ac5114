import { idChars, type ServerProfile } from '../server-profile.js';

export const ollama: ServerProfile = {
  name: 'ollama',
  title: 'Ollama',
  baseUrl: 'http://localhost:11434/v1',
  key: 'none',
  sendReasoning: false,
  quirks: [
    'no key needed (one sent is ignored)',
    'completion ids `chatcmpl-<0-998>`, so they repeat; reasoning in `reasoning`',
    'streams each tool call whole in one delta, the role in every delta; usage without details',
    'older versions send tool-call deltas without `index`',
  ],
  sources: ['https://docs.ollama.com/api/openai-compatibility', 'https://github.com/ollama/ollama/blob/main/openai/openai.go'],
  dialect: {
    completionId: (request) => `chatcmpl-${(request * 37) % 999}`,
    toolCallId: (request, call) => `call_${idChars(request * 16 + call, 8).toLowerCase()}`,
    reasoning: 'reasoning',
    usage: 'plain',
    top: { system_fingerprint: 'fp_ollama' },
    indexInMessageToolCalls: true,
    stream: { opening: 'role-every-chunk', toolCalls: 'whole', toolFinishReason: 'tool_calls', usage: 'when-asked' },
    jsonSuffix: '\n',
  },
};
