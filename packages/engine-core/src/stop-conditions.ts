import type { JournalEvent } from '@delta/journal';

interface Counted {
  count: number;
  /** How many events were counted, and the first and last of them (by identity). */
  upTo: number;
  first: JournalEvent | undefined;
  last: JournalEvent | undefined;
}

/**
 * What each events array was counted to. The engine's JournalReader only ever appends to the array it
 * returns (and returns a new one when the file changed), so the next count reads only the new events;
 * an array that no longer starts and ends where the last count stopped is counted from the start.
 */
const counted = new WeakMap<readonly JournalEvent[], Counted>();

/** The number of iterations (model calls that produced a THOUGHT) in the journal. */
export function countIterations(events: readonly JournalEvent[]): number {
  let memo = counted.get(events);
  if (!memo || memo.upTo > events.length || (memo.upTo > 0 && (events[0] !== memo.first || events[memo.upTo - 1] !== memo.last))) {
    memo = { count: 0, upTo: 0, first: undefined, last: undefined };
    counted.set(events, memo);
  }
  for (let index = memo.upTo; index < events.length; index += 1) if (events[index]!.type === 'THOUGHT') memo.count += 1;
  memo.upTo = events.length;
  memo.first = events[0];
  memo.last = events.at(-1);
  return memo.count;
}

/** The run has used its iteration budget for this engine invocation. */
export function budgetExhausted(nextIteration: number, lastAllowedIteration: number): boolean {
  return nextIteration > lastAllowedIteration;
}

/** The model answered without tool calls: the task is done. */
export function isFinalAnswer(toolCallCount: number): boolean {
  return toolCallCount === 0;
}

/**
 * The model's last word was a final answer and nothing came after it (a run killed after its final
 * answer but before ENGINE_END): the run is complete, the model is not asked again.
 */
export function finalAnswerGiven(events: readonly JournalEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    if (event.type === 'USER_MESSAGE' || event.type === 'ACTION_RESULT') return undefined;
    if (event.type === 'THOUGHT') return event.tool_calls.length === 0 ? (event.content ?? '') : undefined;
  }
  return undefined;
}
