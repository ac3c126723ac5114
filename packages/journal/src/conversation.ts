import { jsonToKeep, nextTurnStart, toolMessages, type ConversationMessage, type ConversationTurn } from './conversation-fold.js';
import type { RunState } from './run-state.js';

/**
 * The conversation a run's state rebuilds, always one a strict OpenAI-compatible API accepts: the user
 * messages, each assistant message with its tool calls followed by exactly one tool message per call
 * (in call order; a placeholder, MISSING_RESULT, for a result never recorded), and later user messages.
 */
export interface Conversation {
  /** Every message, in order; new arrays, the messages themselves frozen. */
  readonly messages: ConversationMessage[];
  /**
   * `JSON.stringify(messages[i])` for each message: what a request body holds for it; undefined for a
   * large message, whose text the state does not keep (see jsonToKeep): its user makes it, a piece at a
   * time if it can (a request body is written that way).
   */
  readonly json: Array<string | undefined>;
  /** Whether messages[0] is the task: the first user message, which every window keeps. */
  readonly hasTask: boolean;
  /**
   * The messages after the task, cut where they may be cut: whole turns, in order, covering them all. A
   * turn is the user messages that led into an iteration, its assistant message and its tool results;
   * a last turn without an iteration holds user messages the model has not answered yet.
   */
  readonly turns: ConversationTurn[];
}

/** The conversation of a state: copies of its lists, with the turn still waiting for results completed by placeholders. */
export function conversationOf(state: RunState): Conversation {
  const fold = state.conversation;
  const messages = fold.messages.toArray();
  const json = fold.json.toArray();
  const turns = fold.turns.toArray();
  const start = nextTurnStart(fold);
  const open = fold.open;
  if (open) {
    messages.push(open.assistant);
    json.push(open.assistantJson);
    for (const message of toolMessages(open.thought, open.results)) {
      messages.push(message);
      json.push(jsonToKeep(message));
    }
    turns.push({ iteration: open.thought.iteration, start: open.start, end: messages.length });
    if (open.deferred.length > 0) {
      const deferredStart = messages.length;
      for (const message of open.deferred) {
        messages.push(message);
        json.push(jsonToKeep(message));
      }
      turns.push({ iteration: undefined, start: deferredStart, end: messages.length });
    }
  } else if (messages.length > start) {
    turns.push({ iteration: undefined, start, end: messages.length });
  }
  return { messages, json, hasTask: fold.hasTask, turns };
}
