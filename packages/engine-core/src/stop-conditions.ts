import type { RunState } from '@delta/journal';

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
export function finalAnswerGiven(state: RunState): string | undefined {
  return state.finalAnswer;
}
