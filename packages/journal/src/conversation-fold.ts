import { AppendList } from './append-list.js';
import type { JournalEvent, ThoughtEvent } from './events.js';

/** One tool call in an assistant message, in the OpenAI chat format. */
export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A message of the conversation the journal rebuilds, in the OpenAI chat format (frozen). */
export type ConversationMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly ChatToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

/** Said in place of a tool result that was never recorded, so the conversation stays valid. */
export const MISSING_RESULT = '[no result was recorded for this tool call: the run stopped before it finished]';

/** A turn of the conversation: the messages `[start, end)`, and the iteration of its THOUGHT (undefined: none yet). */
export interface ConversationTurn {
  readonly iteration: number | undefined;
  readonly start: number;
  readonly end: number;
}

/** The last THOUGHT while some of its tool calls have no result yet: its turn is not final. */
interface OpenTurn {
  readonly thought: ThoughtEvent;
  /** Where its turn starts in `messages` (the user messages that led into it come first). */
  readonly start: number;
  readonly assistant: ConversationMessage;
  readonly assistantJson: string | undefined;
  /** The results so far, by call id. */
  readonly results: ReadonlyMap<string, string>;
  /** User messages journaled while it waits: they follow its tool results. */
  readonly deferred: readonly ConversationMessage[];
}

/**
 * The conversation part of a run's state. `messages` holds every message whose place and content are
 * final, each with its JSON text in `json` (undefined for a large one, see jsonToKeep); `turns` the closed turns over them. A THOUGHT whose tool calls
 * still wait for results is `open`, outside `messages` until its last result arrives (or the next THOUGHT
 * closes it with placeholders).
 */
export interface ConversationFold {
  /** Whether messages[0] is the task: the first user message, journaled before any THOUGHT. */
  readonly hasTask: boolean;
  readonly messages: AppendList<ConversationMessage>;
  readonly json: AppendList<string | undefined>;
  readonly turns: AppendList<ConversationTurn>;
  readonly open: OpenTurn | undefined;
}

export function emptyConversation(): ConversationFold {
  return Object.freeze({
    hasTask: false,
    messages: AppendList.empty<ConversationMessage>(),
    json: AppendList.empty<string | undefined>(),
    turns: AppendList.empty<ConversationTurn>(),
    open: undefined,
  });
}

function frozen<T extends ConversationMessage>(message: T): T {
  if (message.role === 'assistant' && message.tool_calls) {
    for (const call of message.tool_calls) Object.freeze(Object.freeze(call).function);
    Object.freeze(message.tool_calls);
  }
  return Object.freeze(message);
}

function assistantMessage(thought: ThoughtEvent): ConversationMessage {
  if (thought.tool_calls.length === 0) return frozen({ role: 'assistant', content: thought.content ?? '' });
  return frozen({
    role: 'assistant',
    content: thought.content,
    tool_calls: thought.tool_calls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
      // A server that attached more to a call (Gemini's thought signature) wants it back with the call.
      ...call.extra,
    })),
  });
}

/** The tool messages of a THOUGHT's calls, in call order, with a placeholder for each missing result. */
export function toolMessages(thought: ThoughtEvent, results: ReadonlyMap<string, string>): ConversationMessage[] {
  return thought.tool_calls.map((call) => frozen({ role: 'tool', tool_call_id: call.id, content: results.get(call.id) ?? MISSING_RESULT }));
}

/** Where the next turn starts: after the last closed turn, or after the task. */
export function nextTurnStart(fold: ConversationFold): number {
  return fold.turns.at(-1)?.end ?? (fold.hasTask ? 1 : 0);
}

/** A message whose texts add up to this many characters has no JSON text in the state. */
const KEPT_JSON_CHARS = 1024 * 1024;

/**
 * The JSON text the state keeps for a message, made once so that each request does not serialize the
 * whole conversation again; none for a large message (a 30 MB tool call's arguments): the state would
 * hold a second copy of its text for the rest of the run, and a request body is written from the message
 * a piece at a time, so that its JSON text is never made whole (docs/decisions/large-texts-in-memory.md).
 */
export function jsonToKeep(message: ConversationMessage): string | undefined {
  let chars = message.content?.length ?? 0;
  if (message.role === 'assistant') for (const call of message.tool_calls ?? []) chars += call.function.arguments.length;
  return chars < KEPT_JSON_CHARS ? JSON.stringify(message) : undefined;
}

function appendMessages(fold: ConversationFold, added: readonly ConversationMessage[]): Pick<ConversationFold, 'messages' | 'json'> {
  let { messages, json } = fold;
  for (const message of added) {
    messages = messages.append(message);
    json = json.append(jsonToKeep(message));
  }
  return { messages, json };
}

/** Closes the open turn: its assistant message and one tool message per call become final, then what waited. */
function close(fold: ConversationFold, open: OpenTurn): ConversationFold {
  let { messages, json } = fold;
  messages = messages.append(open.assistant);
  json = json.append(open.assistantJson);
  ({ messages, json } = appendMessages({ ...fold, messages, json }, toolMessages(open.thought, open.results)));
  const turns = fold.turns.append(Object.freeze({ iteration: open.thought.iteration, start: open.start, end: messages.length }));
  ({ messages, json } = appendMessages({ ...fold, messages, json }, open.deferred));
  return Object.freeze({ hasTask: fold.hasTask, messages, json, turns, open: undefined });
}

/**
 * The conversation after one more event: each assistant message is followed by exactly one tool message
 * per call (in call order), and a user message never goes between a call and its result.
 */
export function applyToConversation(fold: ConversationFold, event: JournalEvent): ConversationFold {
  switch (event.type) {
    case 'USER_MESSAGE': {
      const message = frozen({ role: 'user', content: event.content });
      const open = fold.open;
      if (open) return Object.freeze({ ...fold, open: Object.freeze({ ...open, deferred: Object.freeze([...open.deferred, message]) }) });
      const hasTask = fold.hasTask || fold.messages.length === 0;
      return Object.freeze({ ...fold, hasTask, ...appendMessages(fold, [message]) });
    }
    case 'THOUGHT': {
      const before = fold.open ? close(fold, fold.open) : fold;
      const assistant = assistantMessage(event);
      const start = nextTurnStart(before);
      if (event.tool_calls.length === 0) {
        const appended = appendMessages(before, [assistant]);
        const turns = before.turns.append(Object.freeze({ iteration: event.iteration, start, end: appended.messages.length }));
        return Object.freeze({ ...before, ...appended, turns });
      }
      const open: OpenTurn = Object.freeze({
        thought: event,
        start,
        assistant,
        assistantJson: jsonToKeep(assistant),
        results: new Map<string, string>(),
        deferred: Object.freeze([]),
      });
      return Object.freeze({ ...before, open });
    }
    case 'ACTION_RESULT': {
      // A human's answer to ask_human arrives here too, as the result of the ask_human call.
      const open = fold.open;
      if (!open?.thought.tool_calls.some((call) => call.id === event.action_id)) return fold;
      const results = new Map(open.results).set(event.action_id, event.observation_content);
      const updated: OpenTurn = Object.freeze({ ...open, results });
      return results.size === open.thought.tool_calls.length ? close(fold, updated) : Object.freeze({ ...fold, open: updated });
    }
    default:
      return fold;
  }
}
