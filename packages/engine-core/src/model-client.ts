import { setTimeout as sleep } from 'node:timers/promises';
import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { ConfigurationError, DeltaError } from '@delta/errors';
import { attemptFailure, ModelWireError, normaliseCompletion, transientStatus } from '@delta/model-wire';
import { BodyRecorder } from './body-recorder.js';
import { httpFetch } from './http-fetch.js';

/** The time limit of one model request when `llm.timeout_ms` does not set one (the SDK's own is 10 minutes). */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** Retries of a failed request when `llm.max_retries` does not say. */
export const DEFAULT_MODEL_MAX_RETRIES = 2;
/** The longest wait a Retry-After header may ask for; a longer one fails the request at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

export interface ModelClientOptions {
  /** Undefined: no key is sent (no Authorization header), for servers that want none. */
  apiKey: string | undefined;
  baseUrl?: string | undefined;
  maxRetries?: number | undefined;
  timeoutMs?: number | undefined;
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

/** What the engine needs from a model endpoint: one chat completion for a payload. */
export interface ModelClient {
  /** The endpoint, for messages; never the key. */
  readonly baseUrl: string;
  /**
   * Sends the payload. `onRequestBody` receives the exact bytes sent over HTTP before each attempt
   * leaves, so the audit record is written before anything can fail.
   */
  complete(
    payload: ChatCompletionCreateParamsNonStreaming,
    options: {
      signal?: AbortSignal;
      onRequestBody?: (body: string | Uint8Array) => void;
      /**
       * The payload already serialized: exactly the UTF-8 bytes of `JSON.stringify(payload)`. A client may
       * send them as the request body rather than serialize the payload again (the engine's clients do).
       * They are valid until `complete` returns.
       */
      body?: Uint8Array;
      /** Hears every retry and its wait before the wait starts. */
      onRetry?: (notice: ModelRetryNotice) => void;
    },
  ): Promise<ChatCompletion>;
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

/**
 * A ModelClient over the official openai SDK, which is loaded only when a run needs it. The engine does
 * its own retries (the SDK's are off) so that a wait between attempts ends at once when the run is
 * stopped, and a Retry-After longer than a minute is not obeyed blindly.
 */
export async function createModelClient(options: ModelClientOptions): Promise<ModelClient> {
  const { default: OpenAIClient } = await import('openai');
  const recorder = new BodyRecorder();
  const keySent = options.apiKey !== undefined;
  const client: OpenAI = new OpenAIClient({
    // The SDK insists on a key; without one, a placeholder is given and its Authorization header removed.
    apiKey: options.apiKey ?? 'none',
    ...(keySent ? {} : { defaultHeaders: { Authorization: null } }),
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
    fetch: async (url, init) => {
      recorder.record(init?.body);
      return httpFetch(url, init);
    },
  });
  const baseUrl = client.baseURL;
  const maxRetries = options.maxRetries ?? DEFAULT_MODEL_MAX_RETRIES;
  return {
    baseUrl,
    async complete(payload, callOptions) {
      recorder.start(callOptions.onRequestBody);
      try {
        for (let attempt = 0; ; attempt += 1) {
          try {
            const endpoint = chatCompletionsUrl(baseUrl);
            const completion = completionOf(await createChatCompletion(client, payload, callOptions), endpoint);
            // An answer with no choice, no message or no chat completion at all is thrown here, so it is retried.
            normaliseCompletion(completion, { endpoint });
            return completion;
          } catch (error) {
            recorder.rethrowFailure();
            const wait = attempt < maxRetries ? retryDelay(error, attempt, OpenAIClient) : undefined;
            if (wait === undefined) throw describeModelError(error, baseUrl, OpenAIClient, attempt, keySent);
            callOptions.onRetry?.({
              attempt: attempt + 1,
              attempts: maxRetries + 1,
              delayMs: wait.delayMs,
              retryAfterMs: wait.retryAfterMs,
              status: statusOf(error),
              reason: failureReason(error, OpenAIClient),
            });
            await sleep(wait.delayMs, undefined, callOptions.signal ? { signal: callOptions.signal } : {});
          }
        }
      } finally {
        recorder.stop();
      }
    },
  };
}

/**
 * How long to wait before retrying, or undefined when the error is not worth a retry. Retried: no
 * connection or no answer in time, 408, 409, 429 and 5xx (an `x-should-retry` header overrides). The
 * wait is `retry-after-ms` or `Retry-After` when given, else 0.5 s doubling up to 8 s, with jitter.
 */
function retryDelay(error: unknown, attempt: number, sdk: typeof OpenAI): { delayMs: number; retryAfterMs?: number } | undefined {
  if (error instanceof sdk.APIUserAbortError) return undefined;
  const wire = attemptFailure(error);
  if (!wire.transient && !(error instanceof sdk.APIConnectionError)) {
    if (!(error instanceof sdk.APIError) || error.status === undefined) return undefined;
    const headers = error.headers as Headers | undefined;
    const said = headers?.get('x-should-retry');
    const retryable = said === 'true' || (said !== 'false' && ([408, 409, 429].includes(error.status) || error.status >= 500));
    if (!retryable) return undefined;
    const asked = retryAfterMs(headers);
    if (asked !== undefined) return asked <= MAX_RETRY_AFTER_MS ? { delayMs: asked, retryAfterMs: asked } : undefined;
  }
  return { delayMs: Math.round(Math.min(500 * 2 ** attempt, 8_000) * (1 - Math.random() * 0.25)) };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** A failed attempt in a few words, for the retry line of the progress output and the journal. */
function failureReason(error: unknown, sdk: typeof OpenAI): string {
  if (error instanceof sdk.APIConnectionTimeoutError) return 'no answer in time';
  if (error instanceof sdk.APIConnectionError) return causeCode(error) ?? 'no connection';
  if (error instanceof sdk.APIError && error.status !== undefined) return `HTTP ${error.status}`;
  // An answer that came with a success status but holds nothing to act on: its code says what was wrong.
  if (DeltaError.isInstance(error)) return error.code;
  const status = statusOf(error);
  if (status !== undefined) return `HTTP ${status}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The SDK hands over a body not labelled as JSON as text: JSON text is read as such (some servers label a
 * chat completion text/plain), anything else (a proxy's HTML page) is no chat completion, and retried.
 */
function completionOf(value: unknown, endpoint: string): ChatCompletion {
  if (typeof value !== 'string') return value as ChatCompletion;
  try {
    return JSON.parse(value) as ChatCompletion;
  } catch {
    throw new ModelWireError(
      `The model endpoint ${endpoint} answered HTTP 200 with a body that is not JSON, so no chat completion; it begins: ${JSON.stringify(value.slice(0, 200))}`,
      {
        code: 'MODEL_BAD_RESPONSE',
        transient: true,
        hint: 'A proxy or a gateway may be answering in place of the model server: check DELTA_BASE_URL. The engine retries it.',
      },
    );
  }
}

/** The URL requests go to, for messages. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function describeModelError(error: unknown, baseUrl: string, sdk: typeof OpenAI, retries: number, keySent: boolean): unknown {
  if (error instanceof sdk.APIUserAbortError) return error;
  const tries = retries > 0 ? ` (${retries + 1} attempts)` : '';
  // A transient failure leaves the conversation as it was: a plain `delta continue` sends the same request again.
  const resendHint = 'Once it works again, `delta continue -w <workspace>` sends the same request again.';
  const retryHint = 'Once it works again, `delta continue -w <workspace> -m "retry"` retries the run from where it stopped.';
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelWireError(`The model endpoint ${baseUrl} did not answer in time${tries}.`, {
      code: 'MODEL_TIMEOUT',
      cause: error,
      transient: true,
      hint: `Check that the endpoint is up, or raise llm.timeout_ms in agent.yaml. ${resendHint}`,
    });
  }
  if (error instanceof sdk.APIConnectionError) {
    const reason = causeCode(error) ?? error.message;
    return new ModelWireError(`Cannot reach the model endpoint ${baseUrl} (${reason})${tries}.`, {
      code: 'MODEL_UNREACHABLE',
      cause: error,
      transient: true,
      hint: `Check DELTA_BASE_URL (or OPENAI_BASE_URL) and that the server is running and reachable. ${resendHint}`,
    });
  }
  if (error instanceof sdk.AuthenticationError && !keySent) {
    return new ConfigurationError(
      `The model endpoint ${baseUrl} wants an API key (HTTP 401), and none was sent: neither DELTA_API_KEY nor OPENAI_API_KEY is set.`,
      {
        code: 'MODEL_UNAUTHORIZED',
        cause: error,
        hint: 'Set DELTA_API_KEY to the key this endpoint expects, in the environment or in a .env file of the workspace, the agent or the project root.',
      },
    );
  }
  if (error instanceof sdk.AuthenticationError) {
    return new ConfigurationError(`The model endpoint ${baseUrl} rejected the API key (HTTP 401): ${error.message}`, {
      code: 'MODEL_UNAUTHORIZED',
      cause: error,
      hint: 'Check DELTA_API_KEY (or OPENAI_API_KEY); `delta run -v` says which file supplied it.',
    });
  }
  if (error instanceof sdk.APIError) {
    const transient = error.status !== undefined && transientStatus(error.status);
    return new ModelWireError(`The model endpoint ${baseUrl} answered HTTP ${error.status ?? '?'}${tries}: ${error.message}`, {
      code: 'MODEL_ERROR',
      cause: error,
      transient,
      status: error.status,
      hint: `The full request is in io/invocations/ of this run. ${transient ? resendHint : retryHint}`,
    });
  }
  return error;
}

/** The first system error code (ECONNREFUSED, ENOTFOUND, ...) in an error's cause chain, else its deepest message. */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  let deepest: string | undefined;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') deepest = message;
    current = (current as { cause?: unknown }).cause;
  }
  return deepest;
}
