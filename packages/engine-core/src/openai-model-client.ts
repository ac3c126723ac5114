import type OpenAI from 'openai';
import { BodyRecorder } from './body-recorder.js';
import { createChatCompletion, type ModelClient } from './model-client.js';

type Fetch = (url: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A ModelClient over an `openai` SDK client you configured yourself (base URL, key, headers, proxy
 * agent, retries, timeout). Requests go through a copy made with `client.withOptions({ fetch })` whose
 * fetch hands the exact request body to the engine's audit record (io/invocations) and then calls the
 * client's own fetch, so the bytes recorded are the bytes sent. The client itself is not modified.
 * SDK errors reach the run as they are (the run fails with the SDK's message).
 */
export function modelClientFromOpenAI(client: OpenAI): ModelClient {
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
        return await createChatCompletion(recording, payload, options);
      } catch (error) {
        recorder.rethrowFailure();
        throw error;
      } finally {
        recorder.stop();
      }
    },
  };
}
