import { addTokenUsage, type RecordedToolCall, type ThoughtEvent, type TokenUsage } from '@delta/journal';
import { callModel } from './call-model.js';
import { invokeHook } from './lifecycle-hooks.js';
import { nextRequest, type RequestMaking } from './next-request.js';
import { releaseAfterLarge } from './release-memory.js';
import type { Emit, RunContext } from './run-context.js';
import { summarise } from './summarise.js';
import { estimateCost } from './token-usage.js';

/** The model's answer to one request, in hand: `recordAnswer` journals it. */
export type ModelAnswer = Awaited<ReturnType<typeof callModel>> & { iteration: number };

/** Where the loop keeps the answer between the step that got it and the step that journals it. */
export interface AnswerInHand {
  answer?: ModelAnswer;
}

/** How many characters of text an answer holds: its content, reasoning and every call's arguments. */
function answerChars({ turn }: ModelAnswer): number {
  return turn.tool_calls.reduce(
    (chars, call) => chars + call.arguments.length,
    (turn.content?.length ?? 0) + (turn.reasoning?.length ?? 0),
  );
}

/** The run's token total with this call added, and its estimated cost when agent.yaml has prices. */
function usageTotals(context: RunContext, usage: TokenUsage | undefined) {
  if (!usage) return {};
  const total = addTokenUsage(context.metadata.current.usage, usage);
  const pricing = context.agent.config.llm.pricing;
  return { usage: total, ...(pricing ? { estimated_cost: estimateCost(total, pricing) } : {}) };
}

/** The request built from the run's state (next-request.ts), sent (call-model.ts); the characters it handled. */
async function ask(context: RunContext, iteration: number, requests: RequestMaking, emit: Emit) {
  const { payload, body } = await nextRequest(context, iteration, requests, emit);
  const answer: ModelAnswer = { ...(await callModel(context, iteration, payload, body, emit)), iteration };
  return { answer, chars: body.length + answerChars(answer) };
}

/**
 * The think step of iteration `iteration`: the `on_iteration_start` hook, the next request built from
 * the run's state, the model call (its request, response and retries recorded). Returns the answer, not
 * yet journaled; the copies a large request or answer left are collected first (release-memory.ts).
 */
export async function think(context: RunContext, iteration: number, requests: RequestMaking, emit: Emit): Promise<ModelAnswer> {
  await invokeHook(context, 'on_iteration_start', { iteration }, emit);
  context.log(`[${iteration}] thinking...`);
  const { answer, chars } = await ask(context, iteration, requests, emit);
  releaseAfterLarge(chars);
  return answer;
}

/** Takes the answer out of the hand, runs `post_llm_response` and emits the THOUGHT; the characters it held. */
async function journalAnswer(context: RunContext, hand: AnswerInHand, emit: Emit): Promise<number> {
  const answer = hand.answer!;
  hand.answer = undefined;
  const { iteration, invocationId, response, turn, usage, durationMs } = answer;
  await invokeHook(context, 'post_llm_response', { iteration, inputs: { response } }, emit);
  const toolCalls = turn.tool_calls.map(
    (call): RecordedToolCall => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      ...(call.server_id !== undefined ? { server_id: call.server_id } : {}),
      ...(call.arguments_type ? { arguments_type: call.arguments_type } : {}),
      ...(call.problem !== undefined ? { problem: call.problem } : {}),
      ...(call.extra !== undefined ? { extra: call.extra } : {}),
    }),
  );
  const thought = emit({
    type: 'THOUGHT',
    iteration,
    content: turn.content,
    tool_calls: toolCalls,
    llm_invocation_ref: invocationId,
    // How long the call took, retries included: with the THOUGHT's timestamp, when it started (traces).
    duration_ms: durationMs,
    finish_reason: turn.finish_reason,
    ...(turn.reasoning !== undefined ? { reasoning: turn.reasoning } : {}),
    ...(turn.reasoning_field !== undefined ? { reasoning_field: turn.reasoning_field } : {}),
    ...(turn.reasoning_details !== undefined ? { reasoning_details: turn.reasoning_details } : {}),
    ...(turn.normalised.length > 0 ? { normalised: turn.normalised } : {}),
    ...(usage ? { usage } : {}),
  }) as ThoughtEvent;
  context.metadata.updateSoon({ iterations: iteration, ...usageTotals(context, usage) });
  if (thought.content) context.log(`[${iteration}] ${summarise(thought.content)}`);
  return answerChars(answer);
}

/**
 * Journals the answer in hand as a THOUGHT, after the `post_llm_response` hook. Once it is journaled
 * nothing else holds the response (the hand is empty), and its copies are collected before the tools
 * run: a large answer is held once, by the journal's state.
 */
export async function recordAnswer(context: RunContext, hand: AnswerInHand, emit: Emit): Promise<void> {
  releaseAfterLarge(await journalAnswer(context, hand, emit));
}
