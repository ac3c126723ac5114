import type { JournalEvent, ThoughtEvent } from '@delta/journal';
import type { ChatMessage } from './messages.js';

export interface JournalMessagesOptions {
  /** Keep only the last N iterations (plus the initial task). Omit for the whole conversation. */
  maxIterations?: number;
}

/** Said in place of a tool result that was never recorded, so the conversation stays valid. */
export const MISSING_RESULT =
  '[no result was recorded for this tool call: the run stopped before it finished]';

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

function rebuildBlocks(events: readonly JournalEvent[]): Block[] {
  const blocks: Block[] = [];
  let open: { block: Block; thought: ThoughtEvent; results: Map<string, string> } | undefined;
  let deferred: ChatMessage[] = [];

  const close = () => {
    if (!open) return;
    for (const call of open.thought.tool_calls) {
      open.block.messages.push({ role: 'tool', tool_call_id: call.id, content: open.results.get(call.id) ?? MISSING_RESULT });
    }
    open = undefined;
    if (deferred.length > 0) blocks.push({ iteration: undefined, messages: deferred });
    deferred = [];
  };

  for (const event of events) {
    switch (event.type) {
      case 'USER_MESSAGE': {
        const message: ChatMessage = { role: 'user', content: event.content };
        // A user message never goes between a tool call and its result.
        if (open) deferred.push(message);
        else blocks.push({ iteration: undefined, messages: [message] });
        break;
      }
      case 'THOUGHT': {
        close();
        const block: Block = { iteration: event.iteration, messages: [assistantMessage(event)] };
        blocks.push(block);
        if (event.tool_calls.length > 0) open = { block, thought: event, results: new Map() };
        break;
      }
      case 'ACTION_RESULT': {
        // A human's answer to ask_human arrives here too, as the result of the ask_human call.
        if (open && open.thought.tool_calls.some((call) => call.id === event.action_id)) {
          open.results.set(event.action_id, event.observation_content);
          if (open.results.size === open.thought.tool_calls.length) close();
        }
        break;
      }
      default:
        break;
    }
  }
  close();
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
 * Rebuilds the native conversation from journal events: the user messages, each assistant message with
 * its tool calls followed by exactly one tool message per call (in call order), and later user messages.
 * The result is always a conversation a strict OpenAI-compatible API accepts.
 */
export function journalToMessages(events: readonly JournalEvent[], options: JournalMessagesOptions = {}): ChatMessage[] {
  return conversationMessages(windowConversation(journalToConversation(events), options.maxIterations));
}
