import type { ChatMessage } from './messages.js';

/** Counts the tokens of a text. The default is `estimateTokens`; a caller may bring a real tokenizer. */
export type CountTokens = (text: string) => number;

/** What each message costs beyond its content (role and separators), as in OpenAI's counting guide. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** What each tool call costs beyond its id, name and arguments. */
export const TOOL_CALL_OVERHEAD_TOKENS = 4;

/**
 * Estimates tokens without a tokenizer: one token per 4 ASCII characters (English text and code run at
 * 3.5 to 4.5 with GPT tokenizers) plus one per other character (CJK is about one token each; accented
 * letters and emoji cost at most that). It errs high rather than low for non-English text.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) ascii += 1;
    // The second half of a surrogate pair belongs to a character already counted.
    else if (code < 0xdc00 || code > 0xdfff) other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}

/** The tokens one message costs: its content, its tool calls, and the per-message overhead. */
export function messageTokens(message: ChatMessage, count: CountTokens = estimateTokens): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS + count(message.content ?? '');
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      tokens += TOOL_CALL_OVERHEAD_TOKENS + count(call.id) + count(call.function.name) + count(call.function.arguments);
    }
  }
  return tokens;
}

/** The tokens a list of messages costs: the sum of its messages. */
export function messagesTokens(messages: readonly ChatMessage[], count: CountTokens = estimateTokens): number {
  return messages.reduce((sum, message) => sum + messageTokens(message, count), 0);
}
