import { idChars, type ServerProfile } from '../server-profile.js';

export const llamaCpp: ServerProfile = {
  name: 'llama.cpp',
  title: 'llama.cpp server (llama-server)',
  baseUrl: 'http://localhost:8080/v1',
  key: 'optional',
  sendReasoning: false,
  quirks: [
    'reasoning in `reasoning_content` (`--reasoning-format deepseek`)',
    'the first delta is `{"role":"assistant","content":null}`; usage and `timings` always come in the finish chunk',
    'a `timings` object on every answer',
  ],
  sources: ['https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md'],
  dialect: {
    completionId: (request) => `chatcmpl-${idChars(request, 32)}`,
    toolCallId: (request, call) => idChars(request * 16 + call + 7, 32),
    reasoning: 'reasoning_content',
    usage: 'plain',
    top: {
      system_fingerprint: 'b6097-9515c613',
      timings: { prompt_n: 12, prompt_ms: 20.5, predicted_n: 8, predicted_ms: 30.2, predicted_per_second: 264.9 },
    },
    stream: { opening: 'role-null', toolCalls: 'pieces', toolFinishReason: 'tool_calls', usage: 'in-finish-chunk' },
    jsonContentType: 'application/json; charset=utf-8',
  },
};
