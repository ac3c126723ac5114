import { MISSING_RESULT, type ConversationMessage, type JournalEvent, type ThoughtEvent } from '@delta/journal';

/**
 * What a run's state must say, computed the plain way: each value by scanning the whole list of events,
 * as the engine did before its state was a fold. The property test checks the fold against these.
 */

interface Block {
  iteration: number | undefined;
  messages: ConversationMessage[];
}

function assistant(thought: ThoughtEvent): ConversationMessage {
  if (thought.tool_calls.length === 0) return { role: 'assistant', content: thought.content ?? '' };
  return {
    role: 'assistant',
    content: thought.content,
    tool_calls: thought.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}

/** The task and the turns, each turn the user messages that led into it, its assistant message and tool results. */
export function oracleConversation(events: readonly JournalEvent[]): {
  task: ConversationMessage | undefined;
  turns: { iteration: number | undefined; messages: ConversationMessage[] }[];
} {
  const blocks: Block[] = [];
  let open: { block: Block; thought: ThoughtEvent; results: Map<string, string> } | undefined;
  let deferred: ConversationMessage[] = [];
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
    if (event.type === 'USER_MESSAGE') {
      const message: ConversationMessage = { role: 'user', content: event.content };
      if (open) deferred.push(message);
      else blocks.push({ iteration: undefined, messages: [message] });
    } else if (event.type === 'THOUGHT') {
      close();
      const block: Block = { iteration: event.iteration, messages: [assistant(event)] };
      blocks.push(block);
      if (event.tool_calls.length > 0) open = { block, thought: event, results: new Map() };
    } else if (event.type === 'ACTION_RESULT' && open?.thought.tool_calls.some((call) => call.id === event.action_id)) {
      open.results.set(event.action_id, event.observation_content);
      if (open.results.size === open.thought.tool_calls.length) close();
    }
  }
  close();
  const first = blocks[0];
  const task = first && first.iteration === undefined ? first.messages[0] : undefined;
  const rest = task ? [{ iteration: undefined, messages: first!.messages.slice(1) }, ...blocks.slice(1)] : blocks;
  const turns: { iteration: number | undefined; messages: ConversationMessage[] }[] = [];
  let leading: ConversationMessage[] = [];
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

/** The calls of the last THOUGHT without an ACTION_RESULT, with what happened to each since. */
export function oraclePendingCalls(events: readonly JournalEvent[]) {
  const last = events.findLastIndex((event) => event.type === 'THOUGHT');
  const thought = events[last];
  if (thought?.type !== 'THOUGHT') return [];
  const later = events.slice(last + 1);
  return thought.tool_calls
    .filter((call) => !later.some((event) => event.type === 'ACTION_RESULT' && event.action_id === call.id))
    .map((call) => {
      const mine = later.filter((event) => 'action_id' in event && event.action_id === call.id);
      const asked = mine.findLast((event) => event.type === 'HUMAN_INPUT_REQUEST' || event.type === 'HUMAN_INPUT_RECEIVED');
      const received = mine.findLast((event) => event.type === 'HUMAN_INPUT_RECEIVED');
      return {
        call,
        iteration: thought.iteration,
        started: mine.some((event) => event.type === 'ACTION_REQUEST'),
        waitingForHuman: asked?.type === 'HUMAN_INPUT_REQUEST' ? asked : undefined,
        received: received?.type === 'HUMAN_INPUT_RECEIVED' ? received.response : undefined,
      };
    });
}

/** Every derived value of a run's state, from the events alone. */
export function oracleState(events: readonly JournalEvent[]) {
  const lastStart = events.findLastIndex((event) => event.type === 'ENGINE_START');
  const end = events.slice(lastStart + 1).findLast((event) => event.type === 'ENGINE_END');
  const lastWord = events.findLast((event) => event.type === 'THOUGHT' || event.type === 'USER_MESSAGE' || event.type === 'ACTION_RESULT');
  return {
    version: events.length,
    lastSeq: events.at(-1)?.seq ?? 0,
    iterations: events.filter((event) => event.type === 'THOUGHT').length,
    hookRuns: events.filter((event) => event.type === 'HOOK_EXECUTION_AUDIT').length,
    finalAnswer: lastWord?.type === 'THOUGHT' && lastWord.tool_calls.length === 0 ? (lastWord.content ?? '') : undefined,
    pendingCalls: oraclePendingCalls(events),
    lastEnd: end,
    conversation: oracleConversation(events),
  };
}
