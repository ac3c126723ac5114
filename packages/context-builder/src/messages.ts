import type { ChatToolCall, ConversationMessage } from '@delta/journal';

export type { ChatToolCall };

/** A chat message in the OpenAI chat-completions format (what any compatible endpoint accepts). */
export type ChatMessage = { readonly role: 'system'; readonly content: string } | ConversationMessage;

/**
 * Messages with `json[i]` equal to `JSON.stringify(messages[i])`: a request body is built from the texts
 * without serializing again. `json[i]` is undefined where no text was made: a large message of the
 * conversation (the run's state keeps no copy of its text), or a message made for this context.
 */
export interface ContextMessages {
  messages: ChatMessage[];
  json: Array<string | undefined>;
}
