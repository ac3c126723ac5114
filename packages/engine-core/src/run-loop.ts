import { act } from './act.js';
import { agentChangeReason } from './agent-fingerprint.js';
import type { RunOutcome } from './exit-codes.js';
import { invokeHook } from './lifecycle-hooks.js';
import { type LoopView, mayCallModel, nextStep } from './next-step.js';
import { requestMaking } from './next-request.js';
import type { Emit, RunContext } from './run-context.js';
import { type AnswerInHand, recordAnswer, think } from './think.js';

/** What the loop knows now, as plain values: the run's state, this invocation's limits, what the effects found. */
function loopView(context: RunContext, hand: AnswerInHand, lastIteration: number, costBefore: number): LoopView {
  const state = context.journal.state;
  const cost = context.metadata.current.estimated_cost;
  const answerInHand = hand.answer !== undefined;
  return {
    state,
    answerInHand,
    aborted: context.signal.aborted,
    abortReason: context.signal.reason,
    lastIteration,
    maxIterations: context.maxIterations,
    spent: (cost?.amount ?? 0) - costBefore,
    maxCost: context.maxCost,
    currency: cost?.currency ?? context.agent.config.llm.pricing?.currency ?? 'USD',
    // The agent's files are read only when a model call may come next.
    agentChanged: mayCallModel(state, answerInHand) ? agentChangeReason(context) : undefined,
  };
}

/**
 * The think-act-observe loop: decide, do, record. Each turn it decides the next step from plain values
 * (`nextStep`), then carries it out through one effect (think, recordAnswer, act, a hook), which hands
 * every event it produces to the run writer (`emit`): each is journaled before the effect goes on, and
 * advances `context.journal.state`, from which the next decision is made. So a resumed run goes on
 * exactly where its journal says.
 */
export async function runLoop(context: RunContext, emit: Emit): Promise<RunOutcome> {
  const lastIteration = context.journal.state.iterations + context.maxIterations;
  // --max-cost counts what this invocation spends, as --max-iterations counts its model calls.
  const costBefore = context.metadata.current.estimated_cost?.amount ?? 0;
  const requests = requestMaking(context);
  const hand: AnswerInHand = {};
  for (;;) {
    const step = nextStep(loopView(context, hand, lastIteration, costBefore));
    if (step.kind === 'stop') return step.outcome;
    if (step.kind === 'think') hand.answer = await think(context, step.iteration, requests, emit);
    else if (step.kind === 'record-answer') await recordAnswer(context, hand, emit);
    else {
      const paused = await act(context, step.calls, emit);
      if (paused) return paused;
    }
    // An iteration ends when its every call has a result (at once for a final answer).
    if (step.kind !== 'think' && context.journal.state.pendingCalls.length === 0) {
      await invokeHook(context, 'on_iteration_end', { iteration: context.journal.state.iterations }, emit);
    }
  }
}
