import type { JournalEvent } from '@delta/journal';

/** The number of iterations (model calls that produced a THOUGHT) in the journal. */
export function countIterations(events: readonly JournalEvent[]): number {
  let count = 0;
  for (const event of events) if (event.type === 'THOUGHT') count += 1;
  return count;
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
