import { agentChangeReason } from './agent-fingerprint.js';
import { join } from 'node:path';
import { buildContext, estimateTokens } from '@delta/context-builder';
import { payloadOverride } from '@delta/hooks';
import type { ChatCompletionRequest } from '@delta/model-wire';
import { act } from './act.js';
import { invokeHook } from './lifecycle-hooks.js';
import { ENGINE_LLM_KEYS } from './agent-config.js';
import { requestTools } from './built-in-tools.js';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import { record, type RunContext } from './run-context.js';
import { costLimitReason } from './run-limits.js';
import { budgetExhausted, finalAnswerGiven, isFinalAnswer } from './stop-conditions.js';
import { redactBody } from './redact-secret.js';
import { RequestBodyBuilder } from './request-body.js';
import { releaseAfterLarge } from './release-memory.js';
import { sendReasoningBack } from './send-reasoning.js';
import { summarise } from './summarise.js';
import { thinkAndRecord } from './think.js';

const INTERRUPTED: RunOutcome = { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason: 'interrupted by a signal' };

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

/** How many characters of arguments the calls have in all. */
function argumentChars(calls: ReadonlyArray<{ arguments: string }>): number {
  return calls.reduce((chars, call) => chars + call.arguments.length, 0);
}

/** What every request of a run is made with: the tools it offers, their token cost, and the body builder. */
interface RequestMaking {
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
    env: context.env,
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

/**
 * The think-act-observe loop. Every step is decided from the run's state (`context.journal.state`, the
 * fold of the journal, which each append advances); calls left without a result (a resumed pause, a
 * crash) are answered before the model is called again.
 */
export async function runLoop(context: RunContext): Promise<RunOutcome> {
  const firstIteration = context.journal.state.iterations + 1;
  const lastAllowed = firstIteration + context.maxIterations - 1;
  const tools = requestTools(context.agent, context.mcp?.tools);
  const request: RequestMaking = {
    tools,
    // The tool definitions travel with every request, so a token budget leaves room for them.
    toolTokens: estimateTokens(JSON.stringify(tools)),
    // Each request is written over the previous one: what did not change is not serialized again.
    bodies: new RequestBodyBuilder(),
  };
  // --max-cost counts what this invocation spends, as --max-iterations counts its model calls.
  const costBefore = context.metadata.current.estimated_cost?.amount ?? 0;

  for (;;) {
    if (context.signal.aborted) return INTERRUPTED;
    const state = context.journal.state;
    if (state.pendingCalls.length > 0) {
      // Calls a pause or a crash left without a result are answered before the model is called again.
      const paused = await act(context, state.pendingCalls);
      releaseAfterLarge(argumentChars(state.pendingCalls.map((pending) => pending.call)));
      if (paused) return paused;
      await invokeHook(context, 'on_iteration_end', { iteration: state.pendingCalls[0]!.iteration });
      continue;
    }
    const answered = finalAnswerGiven(state);
    if (answered !== undefined) return { status: 'COMPLETED', exitCode: ExitCode.COMPLETED, finalAnswer: answered };
    const iteration = state.iterations + 1;
    const costReason = costLimitReason(
      (context.metadata.current.estimated_cost?.amount ?? 0) - costBefore,
      context.maxCost,
      context.metadata.current.estimated_cost?.currency ?? context.agent.config.llm.pricing?.currency ?? 'USD',
    );
    if (costReason !== undefined) return { status: 'INTERRUPTED', exitCode: ExitCode.ITERATION_BUDGET, reason: costReason };
    if (budgetExhausted(iteration, lastAllowed)) {
      return {
        status: 'INTERRUPTED',
        exitCode: ExitCode.ITERATION_BUDGET,
        reason: `reached the iteration budget (--max-iterations ${context.maxIterations}) before the task was complete`,
      };
    }

    const agentChanged = agentChangeReason(context);
    if (agentChanged !== undefined) return { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason: agentChanged };

    await invokeHook(context, 'on_iteration_start', { iteration });
    context.log(`[${iteration}] thinking...`);
    const { payload, body } = await nextRequest(context, iteration, request);
    // The messages' JSON texts it was built from are garbage now; a large one goes before its bytes are copied for the record.
    releaseAfterLarge(body.length);

    const thought = await thinkAndRecord(context, iteration, payload, body);
    if (thought.content) context.log(`[${iteration}] ${summarise(thought.content)}`);
    if (isFinalAnswer(thought.tool_calls.length)) {
      await invokeHook(context, 'on_iteration_end', { iteration });
      return { status: 'COMPLETED', exitCode: ExitCode.COMPLETED, finalAnswer: thought.content ?? '' };
    }
    const paused = await act(context, context.journal.state.pendingCalls);
    // What large arguments cost while their tool ran (parsed, written to its stdin) goes before the next request is built.
    releaseAfterLarge(argumentChars(thought.tool_calls));
    if (paused) return paused;
    await invokeHook(context, 'on_iteration_end', { iteration });
  }
}
