import { idChars, type ServerProfile } from '../server-profile.js';

export const vllm: ServerProfile = {
  name: 'vllm',
  title: 'vLLM',
  baseUrl: 'http://localhost:8000/v1',
  key: 'optional',
  sendReasoning: false,
  quirks: [
    'reasoning in `reasoning` (vLLM 0.11+; `reasoning_content` before)',
    '`tool_calls: []` on answers without calls; `stop_reason`, `prompt_logprobs` and `kv_transfer_params` fields',
    'tool-call ids `chatcmpl-tool-...`; some versions and tool parsers send arguments as a JSON object',
  ],
  sources: ['https://docs.vllm.ai/en/v0.11.2/features/reasoning_outputs/', 'https://docs.vllm.ai/en/latest/features/tool_calling.html'],
  dialect: {
    completionId: (request) => `chatcmpl-${idChars(request, 32)}`,
    toolCallId: (request, call) => `chatcmpl-tool-${idChars(request * 16 + call, 32)}`,
    reasoning: 'reasoning',
    usage: 'details',
    top: { system_fingerprint: null, prompt_logprobs: null, kv_transfer_params: null },
    choice: { logprobs: null, stop_reason: null },
    message: { refusal: null, annotations: null, audio: null, function_call: null, tool_calls: [] },
    stream: { opening: 'role-empty', toolCalls: 'pieces', toolFinishReason: 'tool_calls', usage: 'when-asked' },
  },
};
