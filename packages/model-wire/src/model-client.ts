import type { ChatCompletion, ChatCompletionRequest } from './chat-completion.js';
import { createModelWire, type RetryNotice } from './model-wire.js';
import type { StreamDelta } from './stream-assembler.js';

export interface ModelClientOptions {
  /** Undefined: no key is sent (no Authorization header), for servers that want none. */
  apiKey: string | undefined;
  /** OpenAI's (`https://api.openai.com/v1`) when not given; never read from the environment. */
  baseUrl?: string | undefined;
  /** Retries of a failed request (2 by default). */
  maxRetries?: number | undefined;
  /** The idle timeout: the longest wait for the answer to start, and between two chunks of it (120 s by default). */
  timeoutMs?: number | undefined;
  /** The time one attempt may take in all (ten minutes by default). */
  attemptTimeoutMs?: number | undefined;
  /** The cap on one response's size in bytes (32 MiB by default). */
  maxResponseBytes?: number | undefined;
}

export interface CompleteOptions {
  signal?: AbortSignal;
  onRequestBody?: (body: string | Uint8Array) => void;
  /**
   * The payload already serialized: exactly the UTF-8 bytes of `JSON.stringify(payload)`. A client may
   * send them as the request body rather than serialize the payload again (this package's clients do).
   * They are valid until `complete` returns.
   */
  body?: Uint8Array;
  /** Every piece of the answer as it streams in (`stream: true`). */
  onDelta?: (delta: StreamDelta) => void;
  /** Every chunk of the response body as it arrives, for the audit record of a stream (`response.sse`). */
  onResponseBytes?: (chunk: Buffer) => void;
  /** Hears every retry and its wait before the wait starts (the chunks of the failed attempt are not part of the answer). */
  onRetry?: (notice: RetryNotice) => void;
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
  complete(payload: ChatCompletionRequest, options: CompleteOptions): Promise<ChatCompletion>;
}

/**
 * A ModelClient over the wire (`createModelWire`): node's http with keep-alive, the body sent byte for
 * byte, the answer read as a stream within the size cap, streamed or not, retries that end at once when
 * the signal aborts. It reads no environment: the caller resolves DELTA_BASE_URL and the like.
 */
export async function createModelClient(options: ModelClientOptions): Promise<ModelClient> {
  const baseUrl = options.baseUrl ?? 'https://api.openai.com/v1';
  const wire = createModelWire({
    baseUrl,
    apiKey: options.apiKey,
    idleTimeoutMs: options.timeoutMs,
    attemptTimeoutMs: options.attemptTimeoutMs,
    maxRetries: options.maxRetries,
    maxResponseBytes: options.maxResponseBytes,
  });
  return {
    baseUrl,
    async complete(payload, call) {
      const body = call.body ?? Buffer.from(JSON.stringify(payload), 'utf8');
      const reply = await wire.send({
        body,
        stream: payload.stream === true,
        signal: call.signal,
        // The audit record is written before each attempt leaves; a record that cannot be written fails the call as it is.
        onAttempt: () => call.onRequestBody?.(body),
        onRetry: call.onRetry,
        onDelta: call.onDelta,
        onBytes: call.onResponseBytes,
      });
      return reply.completion as ChatCompletion;
    },
  };
}
