import { agentChangeReason } from './agent-fingerprint.js';
import { join } from 'node:path';
import { buildContext, estimateTokens } from '@delta/context-builder';
import { payloadOverride } from '@delta/hooks';
import {
  addTokenUsage,
  createInvocationId,
  writeInvocationResult,
  type RecordedToolCall,
  type ThoughtEvent,
  type TokenUsage,
} from '@delta/journal';
import {
  chatCompletionsUrl,
  normaliseCompletion,
  usageOf,
  type ChatCompletion,
  type ChatCompletionRequest,
  type RetryNotice,
} from '@delta/model-wire';
import { act } from './act.js';
import { invokeHook } from './lifecycle-hooks.js';
import { ENGINE_LLM_KEYS } from './agent-config.js';
import { requestTools } from './built-in-tools.js';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import { record, type RunContext } from './run-context.js';
import { costLimitReason } from './run-limits.js';
import { budgetExhausted, finalAnswerGiven, isFinalAnswer } from './stop-conditions.js';
import { redactBody, redactSecret } from './redact-secret.js';
import { withResendHint } from './resend-hint.js';
import { redactedDeltas } from './redacted-deltas.js';
import { RedactingStream } from './redact-stream.js';
import { RequestBodyBuilder } from './request-body.js';
import { releaseAfterLarge, releaseAfterLargeAnswer } from './release-memory.js';
import { responseRecord } from './response-record.js';
import { ResponseStreamRecord } from './response-stream-record.js';
import { sendReasoningBack } from './send-reasoning.js';
import { summarise } from './summarise.js';
import { estimateCost } from './token-usage.js';

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

/** A retry and its wait, in the journal before the wait starts and on the progress output. */
function recordRetry(context: RunContext, iteration: number, invocationId: string, notice: RetryNotice): void {
  const retry = `retry ${notice.attempt}/${notice.attempts - 1}`;
  const asked = notice.retryAfterMs !== undefined ? ' (as Retry-After asked)' : '';
  const content = `model: ${notice.summary} from ${chatCompletionsUrl(context.model.baseUrl)}, ${retry} in ${(notice.delayMs / 1000).toFixed(1)} s${asked}`;
  record(context, {
    type: 'SYSTEM_MESSAGE',
    iteration,
    level: 'WARN',
    content,
    model_retry: {
      llm_invocation_ref: invocationId,
      attempt: notice.attempt,
      attempts: notice.attempts,
      delay_ms: notice.delayMs,
      ...(notice.retryAfterMs !== undefined ? { retry_after_ms: notice.retryAfterMs } : {}),
      ...(notice.status !== undefined ? { status: notice.status } : {}),
      reason: notice.summary,
    },
  });
  context.log(content);
}

/** The body a wire error kept because it was no chat completion (see ModelWireError.rawBody). */
function rawBodyOf(error: unknown): string | undefined {
  const rawBody = (error as { rawBody?: unknown } | undefined)?.rawBody;
  return typeof rawBody === 'string' ? rawBody : undefined;
}

/** Calls the model once with `body` (the payload's bytes), recording the exact request and the response under io/invocations/. */
async function think(context: RunContext, iteration: number, payload: ChatCompletionRequest, body: Uint8Array) {
  const invocationId = createInvocationId(iteration);
  const startedAt = new Date();
  const started = performance.now();
  const streamed = payload.stream === true;
  const base = { invocation_id: invocationId, iteration, model: payload.model, started_at: startedAt.toISOString(), stream: streamed };
  let response: ChatCompletion;
  // A signal per call: a client may never remove the listener it adds, so the run's own signal would gain one per iteration.
  const call = new AbortController();
  const abort = () => call.abort(context.signal.reason);
  if (context.signal.aborted) abort();
  context.signal.addEventListener('abort', abort, { once: true });
  // A streamed answer's body is kept as it came (response.sse), for audit; response.json holds it assembled.
  // Both, like everything of the answer that is written or shown, hold no key (a server or model may echo it).
  const raw = streamed ? new ResponseStreamRecord(context.paths, invocationId) : undefined;
  const rawBytes = raw ? new RedactingStream<Buffer>(context.secrets, (chunk) => raw.write(chunk)) : undefined;
  const onModelDelta = redactedDeltas(context.onModelDelta, context.secrets, iteration, invocationId);
  try {
    response = await context.model.complete(payload, {
      body,
      signal: call.signal,
      onRequestBody: (sent) => context.requests.write(invocationId, sent),
      onRetry: (notice) => {
        // The next attempt's stream is the one kept.
        rawBytes?.end();
        raw?.restart();
        recordRetry(context, iteration, invocationId, notice);
      },
      ...(rawBytes ? { onResponseBytes: (chunk: Buffer) => rawBytes.push(chunk) } : {}),
      ...(onModelDelta ? { onDelta: onModelDelta.push } : {}),
    });
  } catch (error) {
    try {
      rawBytes?.end();
      raw?.close();
      writeInvocationResult(
        context.paths,
        invocationId,
        undefined,
        {
          ...base,
          duration_ms: Math.round(performance.now() - started),
          status: 'FAILED',
          error: redactSecret(error instanceof Error ? error.message : String(error), context.secrets),
        },
        rawBodyOf(error),
      );
    } catch {
      // The call's own error is the one to report; a full disk may refuse this record as well.
    }
    throw withResendHint(error);
  } finally {
    context.signal.removeEventListener('abort', abort);
  }
  onModelDelta?.end();
  rawBytes?.end();
  raw?.close();
  // What the server sent, in one shape (docs/models.md): ids usable and unique in the run, arguments as
  // text, a call that cannot be run kept with the problem its result will tell. io/invocations keeps the original.
  const turn = normaliseCompletion(response, {
    endpoint: chatCompletionsUrl(context.model.baseUrl),
    assignId: (index) => `call_delta_${invocationId}_${index + 1}`,
  });
  // As the server reported it, with cached and reasoning tokens when it gave them (docs/models.md).
  const usage: TokenUsage | undefined = usageOf(response.usage);
  const durationMs = Math.round(performance.now() - started);
  // A large text is stored once: the THOUGHT holds it, response.json says where.
  // The audit record keeps the server's answer as it came, but for the key (docs/security.md). A stream
  // cuts an answer's text into pieces, so response.sse may hold the key cut in two: with a key in the
  // answer, response.sse goes and response.json (assembled, redacted) alone records it.
  const redacted = redactSecret(response, context.secrets);
  if (raw && redacted !== response) raw.discard();
  const { record: responseJson, moved } = responseRecord(redacted, turn, invocationId);
  writeInvocationResult(context.paths, invocationId, responseJson, {
    ...base,
    duration_ms: durationMs,
    status: 'SUCCESS',
    ...(usage ? { token_usage: usage } : {}),
    ...(moved.length > 0 ? { stored_in_journal: moved } : {}),
  });
  return { invocationId, response, turn, usage, durationMs };
}

/** The run's token total with this call added, and its estimated cost when agent.yaml has prices. */
function usageTotals(context: RunContext, usage: TokenUsage | undefined) {
  if (!usage) return {};
  const total = addTokenUsage(context.metadata.current.usage, usage);
  const pricing = context.agent.config.llm.pricing;
  return { usage: total, ...(pricing ? { estimated_cost: estimateCost(total, pricing) } : {}) };
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

/**
 * Calls the model, then records its answer as a THOUGHT and returns that event. Nothing of the response
 * outlives this call: a large answer is held once, by the journal's state, while the tools run.
 */
async function thinkAndRecord(context: RunContext, iteration: number, payload: ChatCompletionRequest, body: Uint8Array) {
  const { invocationId, response, turn, usage, durationMs } = await think(context, iteration, payload, body);
  releaseAfterLargeAnswer(turn);
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
  });
  context.metadata.updateSoon({ iterations: iteration, ...usageTotals(context, usage) });
  releaseAfterLargeAnswer(turn);
  return thought as ThoughtEvent;
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
