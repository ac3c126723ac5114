import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { ConfigurationError, SystemError } from '@delta/errors';

export interface ModelClientOptions {
  apiKey: string;
  baseUrl?: string | undefined;
  maxRetries?: number | undefined;
  timeoutMs?: number | undefined;
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
    options: { signal?: AbortSignal; onRequestBody?: (body: string) => void },
  ): Promise<ChatCompletion>;
}

/** A ModelClient over the official openai SDK, which is loaded only when a run needs it. */
export async function createModelClient(options: ModelClientOptions): Promise<ModelClient> {
  const { default: OpenAIClient } = await import('openai');
  let onBody: ((body: string) => void) | undefined;
  const client: OpenAI = new OpenAIClient({
    apiKey: options.apiKey,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: options.maxRetries ?? 2,
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    fetch: async (url, init) => {
      if (onBody && typeof init?.body === 'string') onBody(init.body);
      return fetch(url, init);
    },
  });
  const baseUrl = client.baseURL;
  return {
    baseUrl,
    async complete(payload, callOptions) {
      onBody = callOptions.onRequestBody;
      try {
        return await client.chat.completions.create(payload, callOptions.signal ? { signal: callOptions.signal } : {});
      } catch (error) {
        throw describeModelError(error, baseUrl, OpenAIClient);
      } finally {
        onBody = undefined;
      }
    },
  };
}

function describeModelError(error: unknown, baseUrl: string, sdk: typeof OpenAI): unknown {
  if (error instanceof sdk.APIUserAbortError) return error;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new SystemError(`The model endpoint ${baseUrl} did not answer in time.`, {
      code: 'MODEL_TIMEOUT',
      cause: error,
      hint: 'Check that the endpoint is up, or raise llm.timeout_ms in agent.yaml.',
    });
  }
  if (error instanceof sdk.APIConnectionError) {
    const reason = causeCode(error) ?? error.message;
    return new SystemError(`Cannot reach the model endpoint ${baseUrl} (${reason}).`, {
      code: 'MODEL_UNREACHABLE',
      cause: error,
      hint: 'Check DELTA_BASE_URL (or OPENAI_BASE_URL) and that the server is running and reachable.',
    });
  }
  if (error instanceof sdk.AuthenticationError) {
    return new ConfigurationError(`The model endpoint ${baseUrl} rejected the API key (HTTP 401): ${error.message}`, {
      code: 'MODEL_UNAUTHORIZED',
      cause: error,
      hint: 'Check DELTA_API_KEY (or OPENAI_API_KEY); `delta run -v` says which file supplied it.',
    });
  }
  if (error instanceof sdk.APIError) {
    return new SystemError(`The model endpoint ${baseUrl} answered HTTP ${error.status ?? '?'}: ${error.message}`, {
      code: 'MODEL_ERROR',
      cause: error,
      hint: 'The full request is in io/invocations/ of this run.',
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
