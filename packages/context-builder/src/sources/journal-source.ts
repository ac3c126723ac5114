import { ConfigurationError } from '@delta/errors';
import { conversationOf, type RunState } from '@delta/journal';
import { fitConversation } from '../fit-conversation.js';
import { conversationMessages, windowConversation } from '../journal-messages.js';
import type { JournalSource } from '../manifest.js';
import type { ContextMessages } from '../messages.js';
import { sourceId, type SourceContext } from './source-context.js';

export interface JournalSourceContext extends SourceContext {
  state: RunState;
  journalPath: string;
}

/**
 * The native conversation of a `journal` source: the last `max_iterations` iterations and the initial
 * task, then fitted into `limit` tokens (undefined: no limit) by dropping the oldest iterations.
 */
export function journalSourceMessages(
  source: JournalSource,
  index: number,
  limit: { tokens: number; describe: string } | undefined,
  context: JournalSourceContext,
): ContextMessages {
  const whole = conversationOf(context.state);
  if (source.max_iterations === undefined && limit === undefined) return { messages: whole.messages, json: whole.json };
  const conversation = windowConversation(whole, source.max_iterations);
  if (limit === undefined) return conversationMessages(conversation);
  const fitted = fitConversation(conversation, { limit: limit.tokens, countTokens: context.countTokens, journalPath: context.journalPath });
  if (fitted.fits) return { messages: fitted.messages, json: fitted.json };
  throw new ConfigurationError(
    `context source "${sourceId(source, index)}" (journal): ${limit.describe}, which cannot hold even the initial task ` +
      `and the latest iteration (about ${fitted.minimumTokens} tokens after cutting every text it can)`,
    {
      code: 'CONTEXT_BUDGET_EXCEEDED',
      file: context.manifestFile,
      field: source.max_tokens !== undefined && source.max_tokens <= limit.tokens ? `sources[${index}].max_tokens` : 'total_max_tokens',
      hint: "Raise total_max_tokens (or this source's max_tokens), or give the sources before it smaller max_tokens.",
    },
  );
}
