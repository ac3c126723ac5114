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
