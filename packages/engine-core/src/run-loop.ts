import { estimateTokens } from '@delta/context-builder';
import { act } from './act.js';
import { agentChangeReason } from './agent-fingerprint.js';
import { requestTools } from './built-in-tools.js';
import type { RunOutcome } from './exit-codes.js';
import { invokeHook } from './lifecycle-hooks.js';
import { type LoopView, nextStep } from './next-step.js';
import { releaseAfterLarge } from './release-memory.js';
import { RequestBodyBuilder } from './request-body.js';
import type { RunContext } from './run-context.js';
import { answerChars, type ModelAnswer, type RequestMaking, recordAnswer, think } from './think.js';

/** What the loop knows now: the run's state and this invocation's limits (see LoopView). */
function loopView(context: RunContext, answer: ModelAnswer | undefined, lastIteration: number, costBefore: number): LoopView {
  const cost = context.metadata.current.estimated_cost;
  return {
    state: context.journal.state,
    answerInHand: answer !== undefined,
    aborted: context.signal.aborted,
    abortReason: context.signal.reason,
    lastIteration,
    maxIterations: context.maxIterations,
    spent: (cost?.amount ?? 0) - costBefore,
    maxCost: context.maxCost,
    currency: cost?.currency ?? context.agent.config.llm.pricing?.currency ?? 'USD',
    agentChanged: () => agentChangeReason(context),
  };
}

/**
 * The think-act-observe loop, and the one place its effects are carried out: decide the next step
 * (`nextStep`, a pure function of the run's state, this invocation's limits and whether an answer is in
 * hand), carry it out (think, record the answer, act: each journals what it does, and each append
 * advances `context.journal.state`), give back the memory the step used, and again. Since the decision
 * reads the fold of the journal, a resumed run goes on exactly where its journal says.
 */
export async function runLoop(context: RunContext): Promise<RunOutcome> {
  const lastIteration = context.journal.state.iterations + context.maxIterations;
  // --max-cost counts what this invocation spends, as --max-iterations counts its model calls.
  const costBefore = context.metadata.current.estimated_cost?.amount ?? 0;
  const tools = requestTools(context.agent, context.mcp?.tools);
  const requests: RequestMaking = {
    tools,
    // The tool definitions travel with every request, so a token budget leaves room for them.
    toolTokens: estimateTokens(JSON.stringify(tools)),
    // Each request is written over the previous one: what did not change is not serialized again.
    bodies: new RequestBodyBuilder(),
  };
  // The model's answer between the step that got it and the step that journals it.
  let answer: ModelAnswer | undefined;
  for (;;) {
    const step = nextStep(loopView(context, answer, lastIteration, costBefore));
    if (step.kind === 'stop') return step.outcome;
    // Carry the step out: each one journals what it does (each append advances context.journal.state).
    let chars = 0;
    let paused: RunOutcome | undefined;
    if (step.kind === 'think') ({ answer, chars } = await think(context, step.iteration, requests));
    else if (step.kind === 'record-answer') {
      await recordAnswer(context, answer!);
      chars = answerChars(answer!);
      answer = undefined;
    } else {
      const before = context.journal.state.events.length;
      paused = await act(context, step.calls);
      // The calls' arguments (a tool's stdin) and their observations (its output, read and recorded).
      chars = step.calls.reduce((sum, { call }) => sum + call.arguments.length, 0);
      for (const event of context.journal.state.events.slice(before)) {
        if (event.type === 'ACTION_RESULT') chars += event.observation_content.length;
      }
    }
    // The one place memory is given back, between two steps: the copies a large text left behind
    // (reading an answer, recording it, running a call with it) go before the next step makes its own
    // (docs/decisions/large-texts-in-memory.md).
    releaseAfterLarge(chars);
    if (paused) return paused;
    // An iteration ends when its every call has a result (at once for a final answer).
    if (step.kind !== 'think' && context.journal.state.pendingCalls.length === 0) {
      await invokeHook(context, 'on_iteration_end', { iteration: context.journal.state.iterations });
    }
  }
}
