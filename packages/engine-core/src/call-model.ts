import { createInvocationId, writeInvocationResult, type TokenUsage } from '@delta/journal';
import {
  chatCompletionsUrl,
  normaliseCompletion,
  usageOf,
  type ChatCompletion,
  type ChatCompletionRequest,
  type RetryNotice,
} from '@delta/model-wire';
import type { Emit, RunContext } from './run-context.js';
import { redactSecret } from './redact-secret.js';
import { withResendHint } from './resend-hint.js';
import { redactedDeltas } from './redacted-deltas.js';
import { RedactingStream } from './redact-stream.js';
import { responseRecord } from './response-record.js';
import { ResponseStreamRecord } from './response-stream-record.js';

/** A retry and its wait, emitted (so journaled) before the wait starts, and on the progress output. */
function recordRetry(context: RunContext, iteration: number, invocationId: string, notice: RetryNotice, emit: Emit): void {
  const retry = `retry ${notice.attempt}/${notice.attempts - 1}`;
  const asked = notice.retryAfterMs !== undefined ? ' (as Retry-After asked)' : '';
  const content = `model: ${notice.summary} from ${chatCompletionsUrl(context.model.baseUrl)}, ${retry} in ${(notice.delayMs / 1000).toFixed(1)} s${asked}`;
  emit({
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

/**
 * Calls the model once with `body` (the payload's bytes), recording the exact request and the response
 * under io/invocations/ (a failed call too), and emitting each retry before its wait.
 */
export async function callModel(context: RunContext, iteration: number, payload: ChatCompletionRequest, body: Uint8Array, emit: Emit) {
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
        recordRetry(context, iteration, invocationId, notice, emit);
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
