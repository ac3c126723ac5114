import type { ChatToolCall, ConversationMessage } from '@delta/journal';

export type { ChatToolCall };

/** A chat message in the OpenAI chat-completions format (what any compatible endpoint accepts). */
export type ChatMessage = { readonly role: 'system'; readonly content: string } | ConversationMessage;

/** Messages with `json[i]` equal to `JSON.stringify(messages[i])`: a request body is built from the texts without serializing again. */
export interface ContextMessages {
  messages: ChatMessage[];
  json: string[];
}
