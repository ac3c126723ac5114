import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { DeltaError } from '@delta/errors';
import { attemptFailure, createModelWire, DEFAULT_MAX_RESPONSE_BYTES, type RetryNotice, type StreamDelta } from '@delta/model-wire';

/** The time the engine waits for an answer to start, and between two chunks of it, when `llm.timeout_ms` does not say. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** Retries of a failed request when `llm.max_retries` does not say. */
export const DEFAULT_MODEL_MAX_RETRIES = 2;
/** The cap on one response's size when `llm.max_response_bytes` does not say: 32 MiB. */
export const DEFAULT_MODEL_MAX_RESPONSE_BYTES = DEFAULT_MAX_RESPONSE_BYTES;

export interface ModelClientOptions {
  /** Undefined: no key is sent (no Authorization header), for servers that want none. */
  apiKey: string | undefined;
  baseUrl?: string | undefined;
  maxRetries?: number | undefined;
  /** The idle timeout: the longest wait for the answer to start, and between two chunks of it. */
  timeoutMs?: number | undefined;
  /** The time one attempt may take in all (ten minutes by default). */
  attemptTimeoutMs?: number | undefined;
  /** The cap on one response's size in bytes. */
  maxResponseBytes?: number | undefined;
}

/** Said after a failed attempt, before the wait that precedes the next one. */
export interface ModelRetryNotice {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** Attempts in all (retries + 1). */
  attempts: number;
  /** The wait before the next attempt. */
  delayMs: number;
  /** What the server asked for with Retry-After (or retry-after-ms), when it did. */
  retryAfterMs: number | undefined;
  status: number | undefined;
  /** Why the attempt failed, for a person: `HTTP 500`, `ECONNREFUSED`, `no answer in time`... */
  reason: string;
}

export interface CompleteOptions {
  signal?: AbortSignal;
  onRequestBody?: (body: string | Uint8Array) => void;
  /**
   * The payload already serialized: exactly the UTF-8 bytes of `JSON.stringify(payload)`. A client may
   * send them as the request body rather than serialize the payload again (the engine's clients do).
   * They are valid until `complete` returns.
   */
  body?: Uint8Array;
  /** Every piece of the answer as it streams in (`stream: true`). */
  onDelta?: (delta: StreamDelta) => void;
  /** Every chunk of the response body as it arrives, for the audit record of a stream (`response.sse`). */
  onResponseBytes?: (chunk: Buffer) => void;
  /** Hears every retry and its wait before the wait starts (the chunks of the failed attempt are not part of the answer). */
  onRetry?: (notice: ModelRetryNotice) => void;
}

/** What the engine needs from a model endpoint: one chat completion for a payload. */
export interface ModelClient {
  /** The endpoint, for messages; never the key. */
  readonly baseUrl: string;
  /**
   * Sends the payload. `onRequestBody` receives the exact bytes sent over HTTP before each attempt
   * leaves, so the audit record is written before anything can fail. A streamed answer comes back
   * assembled, in the shape of a non-streamed one.
   */
  complete(payload: ChatCompletionCreateParamsNonStreaming, options: CompleteOptions): Promise<ChatCompletion>;
}

/**
 * One chat completion through an openai SDK client: with `body`, those bytes are sent as they are (the
 * SDK passes binary bodies through); otherwise the SDK serializes the payload.
 */
export function createChatCompletion(
  client: OpenAI,
  payload: ChatCompletionCreateParamsNonStreaming,
  options: { signal?: AbortSignal | undefined; body?: Uint8Array | undefined },
): Promise<ChatCompletion> {
  const signal = options.signal ? { signal: options.signal } : {};
  if (options.body === undefined) return client.chat.completions.create(payload, signal);
  return client.post<ChatCompletion>('/chat/completions', {
    body: options.body,
    headers: { 'content-type': 'application/json' },
    stream: false,
    ...signal,
  });
}

/** The URL requests go to, for messages. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

/**
 * The engine's ModelClient: @delta/model-wire's one entry point (node's http with keep-alive, the body
 * sent byte for byte, the answer read as a stream within the size cap, streamed or not, retries that end
 * at once when the run is stopped). Without a base URL it is OpenAI's; it reads no environment (the caller
 * resolves DELTA_BASE_URL and the like from the environment it was given).
 */
export async function createModelClient(options: ModelClientOptions): Promise<ModelClient> {
  const baseUrl = options.baseUrl ?? 'https://api.openai.com/v1';
  const wire = createModelWire({
    baseUrl,
    apiKey: options.apiKey,
    idleTimeoutMs: options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
    attemptTimeoutMs: options.attemptTimeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_MODEL_MAX_RETRIES,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MODEL_MAX_RESPONSE_BYTES,
  });
  return {
    baseUrl,
    async complete(payload, call) {
      const body = call.body ?? Buffer.from(JSON.stringify(payload), 'utf8');
      const reply = await wire
        .send({
          body,
          stream: (payload as { stream?: unknown }).stream === true,
          ...(call.signal ? { signal: call.signal } : {}),
          // The audit record is written before each attempt leaves; a record that cannot be written fails the call as it is.
          onAttempt: () => call.onRequestBody?.(body),
          ...(call.onRetry
            ? {
                onRetry: (notice: RetryNotice) =>
                  call.onRetry?.({
                    attempt: notice.attempt,
                    attempts: notice.attempts,
                    delayMs: notice.delayMs,
                    retryAfterMs: notice.retryAfterMs,
                    status: notice.status,
                    reason: failureReason(notice.error, notice.status),
                  }),
              }
            : {}),
          ...(call.onDelta ? { onDelta: call.onDelta } : {}),
          ...(call.onResponseBytes ? { onBytes: call.onResponseBytes } : {}),
        })
        .catch((error: unknown) => {
          throw withResendHint(error);
        });
      return reply.completion as ChatCompletion;
    },
  };
}

/** The first system error code (ECONNREFUSED, ENOTFOUND, ...) in an error's cause chain. */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A failed attempt in a few words, for the retry line of the progress output and the journal. */
function failureReason(error: Error, status: number | undefined): string {
  if (DeltaError.isInstance(error)) {
    if (error.code === 'MODEL_TIMEOUT') return 'no answer in time';
    if (error.code === 'MODEL_UNREACHABLE' || error.code === 'MODEL_CONNECTION_LOST') return causeCode(error.cause) ?? 'no connection';
    // An answer that came with a success status but holds nothing to act on: its code says what was wrong.
    if (error.code !== 'MODEL_ERROR' || status === undefined) return error.code;
  }
  return status !== undefined ? `HTTP ${status}` : error.message;
}

const RESEND_HINT = 'Once it works again, `delta continue -w <workspace>` sends the same request again.';

/**
 * A transient failure leaves the conversation as it was: the run FAILED by it resumes with a plain
 * `delta continue`, which sends the same request again. Its hint says so (the wire's says what it did).
 */
function withResendHint(error: unknown): unknown {
  if (!DeltaError.isInstance(error) || !attemptFailure(error).transient) return error;
  const hint = error.hint?.replace(/\s*The engine retries it\.?/, '').trim();
  // The error is the wire's own, made for this call: its hint is completed rather than the error copied.
  (error as { hint: string | undefined }).hint = hint ? `${hint} ${RESEND_HINT}` : RESEND_HINT;
  return error;
}

/**
 * One piece of a streamed model answer, as the library hands it to `onModelDelta`: the iteration and the
 * invocation (its io/invocations/ directory) it belongs to, then text, reasoning, or part of a tool call
 * (`index` counts the answer's calls from 0; `id`, `name` and `arguments` are what this piece adds).
 */
export type ModelDelta = { iteration: number; invocation_id: string } & StreamDelta;
