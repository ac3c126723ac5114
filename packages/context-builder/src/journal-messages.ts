import { conversationOf, type Conversation, type RunState } from '@delta/journal';
import type { ChatMessage, ContextMessages } from './messages.js';

export interface JournalMessagesOptions {
  /** Keep only the last N iterations (plus the initial task). Omit for the whole conversation. */
  maxIterations?: number;
}

/** Keeps the last N iterations (with the user messages that led into them), the user messages not answered yet, and the task. */
export function windowConversation(conversation: Conversation, maxIterations: number | undefined): Conversation {
  if (maxIterations === undefined) return conversation;
  const answered = conversation.turns.filter((turn) => turn.iteration !== undefined).length;
  if (answered <= maxIterations) return conversation;
  let skip = answered - maxIterations;
  const turns = conversation.turns.filter((turn) => {
    if (skip === 0 || turn.iteration === undefined) return true;
    skip -= 1;
    return false;
  });
  return { ...conversation, turns };
}

/** The messages of a conversation's task and turns, in order, with their JSON texts. */
export function conversationMessages(conversation: Conversation): ContextMessages {
  const messages: ChatMessage[] = conversation.hasTask ? [conversation.messages[0]!] : [];
  const json: Array<string | undefined> = conversation.hasTask ? [conversation.json[0]] : [];
  for (const turn of conversation.turns) {
    for (let index = turn.start; index < turn.end; index += 1) {
      messages.push(conversation.messages[index]!);
      json.push(conversation.json[index]);
    }
  }
  return { messages, json };
}

/**
 * The native conversation of a run's state: the user messages, each assistant message with its tool
 * calls followed by exactly one tool message per call (in call order), and later user messages, windowed
 * to the last `maxIterations` iterations and the task. Always a conversation a strict OpenAI-compatible
 * API accepts.
 */
export function journalToMessages(state: RunState, options: JournalMessagesOptions = {}): ChatMessage[] {
  return conversationMessages(windowConversation(conversationOf(state), options.maxIterations)).messages;
}
