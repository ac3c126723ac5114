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

/**
 * Rebuilds the native conversation from journal events: the user messages, each assistant message with
 * its tool calls followed by exactly one tool message per call (in call order), and later user messages.
 * The result is always a conversation a strict OpenAI-compatible API accepts.
 */
export function journalToMessages(events: readonly JournalEvent[], options: JournalMessagesOptions = {}): ChatMessage[] {
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
  return windowed(blocks, options.maxIterations).flatMap((block) => block.messages);
}

function windowed(blocks: Block[], maxIterations: number | undefined): Block[] {
  if (maxIterations === undefined) return blocks;
  const thoughtIndexes = blocks.flatMap((block, index) => (block.iteration === undefined ? [] : [index]));
  if (thoughtIndexes.length <= maxIterations) return blocks;
  let cut = thoughtIndexes[thoughtIndexes.length - maxIterations]!;
  // The user messages that led into the first kept iteration stay with it.
  while (cut > 0 && blocks[cut - 1]!.iteration === undefined) cut -= 1;
  const firstUser = blocks.findIndex((block) => block.iteration === undefined);
  const kept = blocks.slice(cut);
  // The initial task is always kept, whatever the window.
  return firstUser >= 0 && firstUser < cut ? [blocks[firstUser]!, ...kept] : kept;
}
