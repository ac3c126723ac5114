import { setTimeout as sleep } from 'node:timers/promises';
import { DeltaError } from '@delta/errors';
import { bodyPreview, mediaType } from './body-preview.js';
import { chatCompletionsUrl } from './chat-completions-url.js';
import { AttemptTimeout, type HttpAnswer, IdleTimeout, httpPost } from './http-exchange.js';
import type { ModelTurn } from './model-turn.js';
import { normaliseCompletion } from './normalise-completion.js';
import { DEFAULT_MAX_RESPONSE_BYTES, readAnswer } from './read-answer.js';
import { redactErrorMessage, redactText } from './redact-key.js';
import { DEFAULT_MAX_RETRIES, MAX_RETRY_AFTER_MS, backoffMs, retryAfterMs, transientStatus } from './retry-policy.js';
import type { StreamDelta } from './stream-assembler.js';
import { type AttemptFailure, ModelAuthenticationError, ModelWireError, attemptFailure, causeCode, failureSummary } from './wire-errors.js';

/** The time one attempt may wait for the response to start, and between two chunks of it. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
/** The time one attempt may take in all, its answer read to the end: ten minutes (a long reasoning stream fits). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 600_000;

export interface ModelWireOptions {
  /** The server's base URL, e.g. `http://localhost:11434/v1`; requests go to `<baseUrl>/chat/completions`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; without one no Authorization header is sent (local servers need none). */
  apiKey?: string | undefined;
  /** More request headers. */
  headers?: Record<string, string> | undefined;
  /** See DEFAULT_IDLE_TIMEOUT_MS. */
  idleTimeoutMs?: number | undefined;
  /** See DEFAULT_ATTEMPT_TIMEOUT_MS. */
  attemptTimeoutMs?: number | undefined;
  /** The cap on one response's size; 32 MiB by default. */
  maxResponseBytes?: number | undefined;
  /** Retries after the first attempt for transient failures; 2 by default. */
  maxRetries?: number | undefined;
}

/** Said before the wait that precedes a retry. */
export interface RetryNotice {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** Attempts in all (retries + 1). */
  attempts: number;
  /** How long the engine waits before the next attempt. */
  delayMs: number;
  /** What the server asked for with Retry-After (or retry-after-ms), when it did. */
  retryAfterMs: number | undefined;
  status: number | undefined;
  /** Why the attempt failed, for a person: the error's message, with the HTTP status. */
  reason: string;
  /** The same in a few words: `HTTP 500`, `ECONNREFUSED`, `no answer in time`, or the error's code. */
  summary: string;
  error: Error;
}

export interface ModelCall {
  /** The request body, exactly the bytes sent (a JSON chat-completions request). */
  body: Uint8Array | string;
  /** The request asked for a stream (`"stream": true`): sent with `accept: text/event-stream`. */
  stream?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Before each attempt leaves (1 for the first). */
  onAttempt?: ((attempt: number) => void) | undefined;
  /** After a failed attempt, before waiting for the next. */
  onRetry?: ((notice: RetryNotice) => void) | undefined;
  /** Every piece of the answer as it streams in. */
  onDelta?: ((delta: StreamDelta) => void) | undefined;
  /** Every chunk of the response body as it arrives (of each attempt that got a 2xx answer). */
  onBytes?: ((chunk: Buffer) => void) | undefined;
  /** Ids for tool calls that came without a usable one; see normaliseCompletion. */
  assignId?: ((index: number) => string) | undefined;
}

export interface ModelReply {
  turn: ModelTurn;
  /** The chat completion in the non-streamed shape (assembled when it was streamed), as the server sent it. */
  completion: unknown;
  /** The answer came as an event stream. */
  streamed: boolean;
  status: number;
  /** Attempts made, the successful one included. */
  attempts: number;
}

/** The wire to one OpenAI-compatible server: one entry point, `send`. */
export interface ModelWire {
  readonly baseUrl: string;
  /** The chat-completions URL requests go to. */
  readonly endpoint: string;
  send(call: ModelCall): Promise<ModelReply>;
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && error.name === 'AbortError');
}

/** The first system error code (ECONNREFUSED, ENOTFOUND, ...) in an error's cause chain, else its message. */
function networkReason(error: unknown): string {
  return causeCode(error) ?? (error instanceof Error ? error.message : String(error));
}

/** A failure of the connection, before or during the response. */
function networkError(error: unknown, endpoint: string, answered: boolean): ModelWireError {
  if (error instanceof AttemptTimeout) {
    return new ModelWireError(
      `The model endpoint ${endpoint} did not finish its answer within ${error.limitMs / 1000} s${answered ? ' (it kept sending, too slowly)' : ''}.`,
      {
        code: 'MODEL_TIMEOUT',
        transient: true,
        cause: error,
        hint: 'Check the server, or raise llm.attempt_timeout_ms in agent.yaml for answers that take this long.',
      },
    );
  }
  if (error instanceof IdleTimeout) {
    return new ModelWireError(
      `The model endpoint ${endpoint} sent nothing for ${error.idleMs / 1000} s ${answered ? 'in the middle of its response' : 'after the request'}.`,
      { code: 'MODEL_TIMEOUT', transient: true, cause: error, hint: 'Check that the server is up, or raise llm.timeout_ms in agent.yaml.' },
    );
  }
  if (answered) {
    return new ModelWireError(
      `The connection to the model endpoint ${endpoint} broke in the middle of its response (${networkReason(error)}).`,
      {
        code: 'MODEL_CONNECTION_LOST',
        transient: true,
        cause: error,
        hint: 'The engine retries it.',
      },
    );
  }
  return new ModelWireError(`Cannot reach the model endpoint ${endpoint} (${networkReason(error)}).`, {
    code: 'MODEL_UNREACHABLE',
    transient: true,
    cause: error,
    hint: 'Check DELTA_BASE_URL (or OPENAI_BASE_URL) and that the server is running and reachable.',
  });
}

/** An answer with a status other than 2xx: read (within the cap) for the server's message, then described. */
async function statusError(answer: HttpAnswer, endpoint: string, maxBytes: number, key: string | undefined): Promise<Error> {
  const keySent = key !== undefined && key !== '';
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of answer.chunks) {
    total += chunk.length;
    if (total > Math.min(maxBytes, 1024 * 1024)) {
      answer.discard();
      break;
    }
    chunks.push(chunk);
  }
  // A key the server quotes is taken out before the body is parsed or cut to a preview (never half a key).
  const text = redactText(Buffer.concat(chunks).toString('utf8'), key);
  const bytes = Buffer.from(text, 'utf8');
  let message = '';
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const said = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof said === 'string') message = said;
  } catch {
    // Not JSON: quoted below.
  }
  const contentType = answer.headers['content-type'];
  const what = message !== '' ? message : `${mediaType(contentType)} body "${bodyPreview(bytes)}"`;
  const status = answer.status;
  if (status === 401) {
    return new ModelAuthenticationError(
      keySent
        ? `The model endpoint ${endpoint} rejected the API key (HTTP 401): ${what}`
        : `The model endpoint ${endpoint} wants an API key (HTTP 401), and none was sent: ${what}`,
      { code: 'MODEL_UNAUTHORIZED', hint: 'Set DELTA_API_KEY (or OPENAI_API_KEY); `delta run -v` says which file supplied it.' },
    );
  }
  if (status >= 300 && status < 400) {
    const location = answer.headers.location;
    return new ModelWireError(`The model endpoint ${endpoint} redirects (HTTP ${status}) to ${location ?? 'nowhere'}.`, {
      code: 'MODEL_ERROR',
      transient: false,
      status,
      hint: 'Set DELTA_BASE_URL to the address it redirects to.',
    });
  }
  const said = answer.headers['x-should-retry'];
  const transient = said === 'true' ? true : said === 'false' ? false : transientStatus(status);
  return new ModelWireError(`The model endpoint ${endpoint} answered HTTP ${status}: ${what}`, {
    code: 'MODEL_ERROR',
    transient,
    status,
    retryAfterMs: retryAfterMs(answer.headers),
    hint: transient ? 'The engine retries it.' : 'The full request is in io/invocations/ of this run.',
  });
}

function describeFailure(error: Error, failure: AttemptFailure): string {
  return failure.status !== undefined && !error.message.includes(`HTTP ${failure.status}`)
    ? `HTTP ${failure.status}: ${error.message}`
    : error.message;
}

/**
 * Creates the wire to one server. `send` makes the request, reads the answer within the size cap (a JSON
 * body whole, an event stream delta by delta), normalises it, and retries what is transient: no
 * connection, no answer in time, HTTP 408/409/429/5xx (or what `x-should-retry` says), a body that is no
 * chat completion, an empty answer. A wait follows Retry-After up to a minute (a longer one fails at once),
 * else 0.5 s doubling up to 8 s. The signal ends a wait or a transfer at once.
 */
export function createModelWire(options: ModelWireOptions): ModelWire {
  const url = new URL(chatCompletionsUrl(options.baseUrl));
  const endpoint = url.href;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const keySent = options.apiKey !== undefined && options.apiKey !== '';

  async function attempt(call: ModelCall, body: Uint8Array): Promise<Omit<ModelReply, 'attempts'>> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: call.stream ? 'text/event-stream' : 'application/json',
      'user-agent': 'delta-engine',
      ...options.headers,
    };
    if (keySent) headers.authorization = `Bearer ${options.apiKey}`;
    let answer: HttpAnswer;
    try {
      answer = await httpPost({ url, headers, body, signal: call.signal, idleTimeoutMs, attemptTimeoutMs });
    } catch (error) {
      if (isAbort(error, call.signal)) throw error;
      throw networkError(error, endpoint, false);
    }
    try {
      if (answer.status < 200 || answer.status >= 300) throw await statusError(answer, endpoint, maxBytes, options.apiKey);
      const read = await readAnswer(answer, { endpoint, maxBytes, onDelta: call.onDelta, onBytes: call.onBytes });
      const turn = normaliseCompletion(read.body, { endpoint, status: answer.status, assignId: call.assignId });
      return { turn, completion: read.body, streamed: read.streamed, status: answer.status };
    } catch (error) {
      answer.discard();
      if (isAbort(error, call.signal)) throw error;
      // Whatever of the server's answer an error quotes (a body preview, a stream's error event) holds no key.
      if (DeltaError.isInstance(error)) throw redactErrorMessage(error, options.apiKey);
      throw networkError(error, endpoint, true);
    }
  }

  return {
    baseUrl: options.baseUrl,
    endpoint,
    async send(call) {
      const body = typeof call.body === 'string' ? Buffer.from(call.body, 'utf8') : call.body;
      const attempts = maxRetries + 1;
      for (let number = 1; ; number += 1) {
        call.onAttempt?.(number);
        try {
          return { ...(await attempt(call, body)), attempts: number };
        } catch (error) {
          if (isAbort(error, call.signal)) throw call.signal?.reason ?? error;
          const failure = attemptFailure(error);
          const tooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > MAX_RETRY_AFTER_MS;
          if (!failure.transient || number >= attempts || tooLong) throw withAttempts(error as Error, number, tooLong);
          const delayMs = failure.retryAfterMs ?? backoffMs(number - 1);
          call.onRetry?.({
            attempt: number,
            attempts,
            delayMs,
            retryAfterMs: failure.retryAfterMs,
            status: failure.status,
            reason: describeFailure(error as Error, failure),
            summary: failureSummary(error as Error, failure.status),
            error: error as Error,
          });
          await sleep(delayMs, undefined, call.signal ? { signal: call.signal } : {}).catch(() => {
            throw call.signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
          });
        }
      }
    },
  };
}

/** The last attempt's error, saying how many attempts were made (and why no more). */
function withAttempts(error: Error, attempts: number, retryAfterTooLong: boolean): Error {
  if (retryAfterTooLong) {
    error.message += ` The server asked to wait longer than ${MAX_RETRY_AFTER_MS / 1000} s before retrying; the engine did not wait.`;
  } else if (attempts > 1) {
    error.message += ` (${attempts} attempts)`;
  }
  return error;
}
