import { idChars, type ServerProfile } from '../server-profile.js';

type Json = Record<string, unknown>;

/** Gemini 3 wants each function call's thought signature back with it in later requests. */
function missingSignature(body: Json): string | null {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  for (const [index, message] of messages.entries()) {
    const calls = message?.role === 'assistant' && Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
    for (const call of calls) {
      const google = (call?.extra_content as Json | undefined)?.google as Json | undefined;
      if (typeof google?.thought_signature !== 'string') {
        return `Function call is missing a thought_signature in functionCall parts (message ${index}).`;
      }
    }
  }
  return null;
}

export const gemini: ServerProfile = {
  name: 'gemini',
  title: "Gemini (Google's OpenAI-compatible endpoint)",
  baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
  key: 'required',
  sendReasoning: false,
  quirks: [
    'streamed tool calls come whole, without `index` and with an empty `id`',
    'a streamed tool-call answer ends with `finish_reason: "stop"`',
    'each tool call carries `extra_content.google.thought_signature`, which must be sent back with it (HTTP 400 otherwise)',
  ],
  sources: [
    'https://ai.google.dev/gemini-api/docs/openai',
    'https://github.com/googleapis/python-genai/issues/2868',
    'https://github.com/meilisearch/meilisearch/pull/5712',
  ],
  dialect: {
    completionId: (request) => idChars(request, 23),
    toolCallId: (request, call) => `function-call-${request * 16 + call + 1}`,
    toolCallExtra: (request, call) => ({ extra_content: { google: { thought_signature: `sig-${idChars(request * 16 + call, 16)}` } } }),
    reasoning: 'none',
    usage: 'plain',
    stream: { opening: 'role-empty', toolCalls: 'whole-no-index', toolFinishReason: 'stop', usage: 'when-asked' },
    refuse: missingSignature,
  },
};
