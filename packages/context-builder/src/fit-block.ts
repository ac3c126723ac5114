import { cutText } from './cut-text.js';
import type { ChatMessage } from './messages.js';
import { messageTokens, type CountTokens } from './token-count.js';

export interface FitBlockOptions {
  /** The block's message content before any cut: the header, then the text. */
  header: string;
  text: string;
  /** Where the whole text is, named in the marker. */
  path: string;
  limit: number;
  /** How the marker names the limit, e.g. `max_tokens 2000`. */
  limitName: string;
  countTokens: CountTokens;
}

/**
 * Cuts a block's text so that its message costs at most `limit` tokens, ending it with a marker that says
 * it was cut, by how much, and where the whole text is. Undefined when not even the header and the
 * marker fit.
 */
export function fitBlock(options: FitBlockOptions): ChatMessage | undefined {
  const full = messageTokens({ role: 'system', content: options.header + options.text }, options.countTokens);
  const marker =
    `\n\n[... cut to fit the token budget: this block is about ${full} tokens and its limit is ${options.limit} (${options.limitName}).` +
    ` The whole text is in ${options.path}]`;
  const cut = cutText(
    options.text,
    marker,
    (candidate) => messageTokens({ role: 'system', content: options.header + candidate }, options.countTokens) <= options.limit,
  );
  return cut === undefined ? undefined : { role: 'system', content: options.header + cut };
}
