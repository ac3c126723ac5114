import type { JournalEvent, ThoughtEvent } from '@delta/journal';
import type { ChatMessage } from './messages.js';

export interface JournalMessagesOptions {
  /** Keep only the last N iterations (plus the initial task). Omit for the whole conversation. */
  maxIterations?: number;
}

/** Said in place of a tool result that was never recorded, so the conversation stays valid. */
export const MISSING_RESULT = '[no result was recorded for this tool call: the run stopped before it finished]';

interface Block {
  /** The iteration of the THOUGHT this block holds, or undefined for user messages. */
  iteration: number | undefined;
  messages: ChatMessage[];
}

function assistantMessage(thought: ThoughtEvent): ChatMessage {
  if (thought.tool_calls.length === 0) return { role: 'assistant', content: thought.content ?? '' };
  return {
    role: 'assistant',
    content: thought.content,
    tool_calls: thought.tool_calls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}

/** One iteration of the conversation: the user messages that led into it, the assistant message, its tool results. */
export interface ConversationTurn {
  /** The iteration of its THOUGHT; undefined for user messages the model has not answered yet. */
  iteration: number | undefined;
  messages: ChatMessage[];
}

/** The conversation split where it may be cut: the initial task, then whole turns. */
export interface JournalConversation {
  /** The first user message (the task), which every window keeps. */
  task: ChatMessage | undefined;
  turns: ConversationTurn[];
}

/** How far a rebuild got through one events array: the closed blocks, the block still waiting for tool results, user messages held back. */
interface BlockState {
  blocks: Block[];
  open: { block: Block; thought: ThoughtEvent; results: Map<string, string> } | undefined;
  deferred: ChatMessage[];
  /** The messages of the first `flatBlocks` blocks, all closed, in order: the conversation so far, kept flat. */
  flat: ChatMessage[];
  flatBlocks: number;
  /** How many events were read, and the first and last of them (by identity). */
  count: number;
  first: JournalEvent | undefined;
  last: JournalEvent | undefined;
}

function emptyState(): BlockState {
  return { blocks: [], open: undefined, deferred: [], flat: [], flatBlocks: 0, count: 0, first: undefined, last: undefined };
}

function closeOpen(state: BlockState): void {
  const open = state.open;
  if (!open) return;
  for (const call of open.thought.tool_calls) {
    open.block.messages.push({ role: 'tool', tool_call_id: call.id, content: open.results.get(call.id) ?? MISSING_RESULT });
  }
  state.open = undefined;
  if (state.deferred.length > 0) state.blocks.push({ iteration: undefined, messages: state.deferred });
  state.deferred = [];
}

function readEvent(state: BlockState, event: JournalEvent): void {
  switch (event.type) {
    case 'USER_MESSAGE': {
      const message: ChatMessage = { role: 'user', content: event.content };
      // A user message never goes between a tool call and its result.
      if (state.open) state.deferred.push(message);
      else state.blocks.push({ iteration: undefined, messages: [message] });
      break;
    }
    case 'THOUGHT': {
      closeOpen(state);
      const block: Block = { iteration: event.iteration, messages: [assistantMessage(event)] };
      state.blocks.push(block);
      if (event.tool_calls.length > 0) state.open = { block, thought: event, results: new Map() };
      break;
    }
    case 'ACTION_RESULT': {
      // A human's answer to ask_human arrives here too, as the result of the ask_human call.
      const open = state.open;
      if (open?.thought.tool_calls.some((call) => call.id === event.action_id)) {
        open.results.set(event.action_id, event.observation_content);
        if (open.results.size === open.thought.tool_calls.length) closeOpen(state);
      }
      break;
    }
    default:
      break;
  }
}

/**
 * What each events array was rebuilt into so far. The engine's JournalReader only ever appends to the
 * array it returns (and returns a new one when the file changed), so the next rebuild reads only the
 * new events. The entry is used only if the array still starts and ends, at the point where the last
 * rebuild stopped, with the same event objects; anything else rebuilds from the start.
 */
const rebuilt = new WeakMap<readonly JournalEvent[], BlockState>();

function stateFor(events: readonly JournalEvent[]): BlockState {
  let state = rebuilt.get(events);
  if (!state || state.count > events.length || (state.count > 0 && (events[0] !== state.first || events[state.count - 1] !== state.last))) {
    state = emptyState();
    rebuilt.set(events, state);
  }
  for (let index = state.count; index < events.length; index += 1) readEvent(state, events[index]!);
  state.count = events.length;
  state.first = events[0];
  state.last = events.at(-1);
  return state;
}

/**
 * The blocks of the whole journal: the state's, with the block still waiting for results completed by
 * placeholders (on copies, so the state can go on when the results arrive).
 */
function rebuildBlocks(events: readonly JournalEvent[]): Block[] {
  const state = stateFor(events);
  const open = state.open;
  if (!open) return [...state.blocks];
  const completed: Block = {
    iteration: open.block.iteration,
    messages: [
      ...open.block.messages,
      ...open.thought.tool_calls.map(
        (call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: open.results.get(call.id) ?? MISSING_RESULT }),
      ),
    ],
  };
  const blocks = [...state.blocks.slice(0, -1), completed];
  if (state.deferred.length > 0) blocks.push({ iteration: undefined, messages: [...state.deferred] });
  return blocks;
}

/**
 * Rebuilds the conversation from journal events as the initial task and whole turns: each assistant
 * message is followed by exactly one tool message per call (in call order), so no cut between turns can
 * orphan a tool result.
 */
export function journalToConversation(events: readonly JournalEvent[]): JournalConversation {
  const blocks = rebuildBlocks(events);
  const first = blocks[0];
  const task = first && first.iteration === undefined ? first.messages[0] : undefined;
  const rest = task ? [{ iteration: undefined, messages: first!.messages.slice(1) }, ...blocks.slice(1)] : blocks;
  const turns: ConversationTurn[] = [];
  let leading: ChatMessage[] = [];
  for (const block of rest) {
    if (block.iteration === undefined) {
      leading.push(...block.messages);
      continue;
    }
    turns.push({ iteration: block.iteration, messages: [...leading, ...block.messages] });
    leading = [];
  }
  if (leading.length > 0) turns.push({ iteration: undefined, messages: leading });
  return { task, turns };
}

/** Keeps the last N iterations (with the user messages that led into them) and the initial task. */
export function windowConversation(conversation: JournalConversation, maxIterations: number | undefined): JournalConversation {
  if (maxIterations === undefined) return conversation;
  const answered = conversation.turns.filter((turn) => turn.iteration !== undefined).length;
  if (answered <= maxIterations) return conversation;
  let skip = answered - maxIterations;
  const turns = conversation.turns.filter((turn) => {
    if (skip === 0 || turn.iteration === undefined) return true;
    skip -= 1;
    return false;
  });
  return { task: conversation.task, turns };
}

/** The messages of a conversation, in order. */
export function conversationMessages(conversation: JournalConversation): ChatMessage[] {
  return [...(conversation.task ? [conversation.task] : []), ...conversation.turns.flatMap((turn) => turn.messages)];
}

/**
 * Every message of the journal in order, as `conversationMessages(journalToConversation(events))` gives
 * them, without building turns: closed blocks are flattened once and kept, so an engine asking after each
 * append copies an array of references rather than rebuilding the conversation.
 */
function allMessages(events: readonly JournalEvent[]): ChatMessage[] {
  const state = stateFor(events);
  // While a block waits for tool results it is the last one, and it may still change.
  const closed = state.open ? state.blocks.length - 1 : state.blocks.length;
  for (; state.flatBlocks < closed; state.flatBlocks += 1) {
    for (const message of state.blocks[state.flatBlocks]!.messages) state.flat.push(message);
  }
  const open = state.open;
  if (!open) return state.flat.slice();
  return [
    ...state.flat,
    ...open.block.messages,
    ...open.thought.tool_calls.map(
      (call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: open.results.get(call.id) ?? MISSING_RESULT }),
    ),
    ...state.deferred,
  ];
}

/**
 * Rebuilds the native conversation from journal events: the user messages, each assistant message with
 * its tool calls followed by exactly one tool message per call (in call order), and later user messages.
 * The result is always a conversation a strict OpenAI-compatible API accepts.
 */
export function journalToMessages(events: readonly JournalEvent[], options: JournalMessagesOptions = {}): ChatMessage[] {
  if (options.maxIterations === undefined) return allMessages(events);
  return conversationMessages(windowConversation(journalToConversation(events), options.maxIterations));
}
