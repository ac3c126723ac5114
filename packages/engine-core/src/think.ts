import { join } from 'node:path';
import { buildContext } from '@delta/context-builder';
import { payloadOverride } from '@delta/hooks';
import { addTokenUsage, type RecordedToolCall, type ThoughtEvent, type TokenUsage } from '@delta/journal';
import type { ChatCompletionRequest } from '@delta/model-wire';
import { ENGINE_LLM_KEYS } from './agent-config.js';
import type { requestTools } from './built-in-tools.js';
import { callModel } from './call-model.js';
import { invokeHook } from './lifecycle-hooks.js';
import { redactBody } from './redact-secret.js';
import type { RequestBodyBuilder } from './request-body.js';
import { record, type RunContext } from './run-context.js';
import { sendReasoningBack } from './send-reasoning.js';
import { summarise } from './summarise.js';
import { estimateCost } from './token-usage.js';

/** The request parameters of `llm:` as written (with usage asked of a stream), then `llm.extra_body`'s, as written too. */
function requestParameters(context: RunContext): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context.agent.config.llm)) {
    if (!ENGINE_LLM_KEYS.includes(key)) parameters[key] = value;
  }
  // A stream reports usage only when asked to: asked unless llm.stream_options says otherwise.
  if (parameters.stream === true && parameters.stream_options === undefined) parameters.stream_options = { include_usage: true };
  return { ...parameters, ...context.agent.config.llm.extra_body };
}

/**
 * pre_llm_request may replace the payload (output/final_payload.json). A failing hook or an invalid
 * payload falls back to the proposed one, and the journal says why.
 */
async function applyPreLlmRequest(context: RunContext, iteration: number, proposed: ChatCompletionRequest): Promise<ChatCompletionRequest> {
  const result = await invokeHook(context, 'pre_llm_request', { iteration, inputs: { proposed_payload: proposed } });
  if (!result) return proposed;
  const decision = payloadOverride(result);
  if (decision.problem) {
    record(context, { type: 'SYSTEM_MESSAGE', iteration, level: 'WARN', content: `pre_llm_request: ${decision.problem}` });
  }
  return (decision.payload as ChatCompletionRequest | undefined) ?? proposed;
}

/** What every request of a run is made with: the tools it offers, their token cost, and the body builder. */
export interface RequestMaking {
  tools: ReturnType<typeof requestTools>;
  toolTokens: number;
  bodies: RequestBodyBuilder;
}

/**
 * The next request: its payload (after pre_llm_request) and the exact bytes to send. The context it is
 * built from, with the JSON text of each message, is this function's alone: nothing keeps it once the
 * body is built (a large message's text would otherwise stay in memory through the model's answer).
 */
async function nextRequest(context: RunContext, iteration: number, request: RequestMaking) {
  const { tools, toolTokens, bodies } = request;
  const built = await buildContext({
    manifest: context.agent.context.manifest,
    manifestFile: context.agent.context.file,
    agentHome: context.agent.home,
    cwd: context.paths.workDir,
    runId: context.paths.runId,
    journalPath: context.paths.journal,
    state: context.journal.state,
    env: context.userEnv,
    reservedTokens: toolTokens,
    recordDirectory: (index, source) =>
      join(context.paths.ioDir, 'context', `${String(iteration).padStart(4, '0')}_${source.id ?? `source_${index}`}`),
    signal: context.signal,
    ...(context.launcher ? { launcher: context.launcher } : {}),
    onNotice: context.warnOnce,
  });
  // messages last: a request then starts with the bytes of the previous one, and io/invocations keeps only what is new.
  // A strict server refuses an empty tools list: an agent with no tools and ask_human off sends none.
  const parameters = { ...requestParameters(context), model: context.agent.config.llm.model, ...(tools.length > 0 ? { tools } : {}) };
  // llm.send_reasoning: the model's earlier reasoning goes back with its messages (off by default: DeepSeek refuses it).
  const sent = context.agent.config.llm.send_reasoning === true ? sendReasoningBack(built, context.journal.state) : built;
  const proposed = { ...parameters, messages: sent.messages } as ChatCompletionRequest;
  const payload = await applyPreLlmRequest(context, iteration, proposed);
  // The proposed payload's body is built from the messages' JSON texts; a hook's own payload is serialized whole.
  const serialized =
    payload === proposed ? bodies.build(parameters, sent.json, sent.messages) : Buffer.from(JSON.stringify(payload), 'utf8');
  // The journal holds no key already; a context file or the system prompt might (a tool wrote it there).
  return { payload, body: redactBody(serialized, context.secrets) };
}

/** The run's token total with this call added, and its estimated cost when agent.yaml has prices. */
function usageTotals(context: RunContext, usage: TokenUsage | undefined) {
  if (!usage) return {};
  const total = addTokenUsage(context.metadata.current.usage, usage);
  const pricing = context.agent.config.llm.pricing;
  return { usage: total, ...(pricing ? { estimated_cost: estimateCost(total, pricing) } : {}) };
}

/** The model's answer to one request, in hand: `recordAnswer` journals it. */
export type ModelAnswer = Awaited<ReturnType<typeof callModel>> & { iteration: number };

/** How many characters of text an answer holds: its content, reasoning and every call's arguments. */
export function answerChars({ turn }: ModelAnswer): number {
  return turn.tool_calls.reduce(
    (chars, call) => chars + call.arguments.length,
    (turn.content?.length ?? 0) + (turn.reasoning?.length ?? 0),
  );
}

/**
 * The think step of iteration `iteration`: the `on_iteration_start` hook, the next request built from
 * the run's state, the model call (its request, response and retries recorded). Returns the answer, and
 * how many characters of text the step handled, for the loop to give back before the answer is recorded.
 */
export async function think(context: RunContext, iteration: number, requests: RequestMaking) {
  await invokeHook(context, 'on_iteration_start', { iteration });
  context.log(`[${iteration}] thinking...`);
  const { payload, body } = await nextRequest(context, iteration, requests);
  const answer: ModelAnswer = { ...(await callModel(context, iteration, payload, body)), iteration };
  return { answer, chars: body.length + answerChars(answer) };
}

/**
 * Journals the model's answer as a THOUGHT, after the `post_llm_response` hook. Once the loop drops the
 * answer (right after this step), nothing of the response is left: a large answer is held once, by the
 * journal's state, while the tools run.
 */
export async function recordAnswer(context: RunContext, answer: ModelAnswer): Promise<void> {
  const { iteration, invocationId, response, turn, usage, durationMs } = answer;
  await invokeHook(context, 'post_llm_response', { iteration, inputs: { response } });
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
  const thought = record(context, {
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
}
