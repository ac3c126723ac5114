import { BodyRecorder } from './body-recorder.js';
import type { ChatCompletion } from './chat-completion.js';
import type { ModelClient } from './model-client.js';

type Fetch = (url: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * What the adapter uses of an `openai` SDK client (version 5 or later): an `OpenAI` instance is one. Typed
 * here, not imported, so that nothing of Delta depends on the SDK; openai-client.test.ts checks the fit.
 */
export interface OpenAIClient {
  readonly baseURL: string;
  withOptions(options: { fetch: Fetch }): OpenAIClient;
  post(
    path: string,
    options: { body: Uint8Array; headers: Record<string, string>; stream: false; signal?: AbortSignal },
  ): PromiseLike<unknown>;
}

/**
 * A ModelClient over an `openai` SDK client you configured yourself (base URL, key, headers, proxy
 * agent, retries, timeout). Requests go through a copy made with `client.withOptions({ fetch })` whose
 * fetch hands the exact request body to the audit record (`onRequestBody`) and then calls the client's
 * own fetch, so the bytes recorded are the bytes sent. The client itself is not modified. SDK errors
 * reach the caller as they are.
 */
export function modelClientFromOpenAI(client: OpenAIClient): ModelClient {
  // The SDK keeps its fetch in a TypeScript-private field; reading it keeps a custom fetch working.
  const ownFetch: Fetch = (client as unknown as { fetch?: Fetch }).fetch ?? globalThis.fetch;
  const recorder = new BodyRecorder();
  const recording = client.withOptions({
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      recorder.record(init?.body);
      return ownFetch(url, init);
    },
  });
  return {
    baseUrl: client.baseURL,
    async complete(payload, options) {
      recorder.start(options.onRequestBody);
      try {
        // The bytes the SDK's chat.completions.create would send (it serializes with JSON.stringify too).
        const body = options.body ?? Buffer.from(JSON.stringify(payload), 'utf8');
        const signal = options.signal ? { signal: options.signal } : {};
        const completion = await recording.post('/chat/completions', {
          body,
          headers: { 'content-type': 'application/json' },
          stream: false,
          ...signal,
        });
        return completion as ChatCompletion;
      } catch (error) {
        recorder.rethrowFailure();
        throw error;
      } finally {
        recorder.stop();
      }
    },
  };
}
