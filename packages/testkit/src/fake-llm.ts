import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeAnswer } from './answer-writer.js';
import { buildReply, promptLength } from './assistant-reply.js';
import { type CompletionIdentity, completionBody, streamChunks } from './completion-body.js';
import { type AcceptedCompletion, createCompletionReader } from './completion-reader.js';
import { readBody, sendJson } from './http-response.js';
import { largeAnswer } from './large-answer.js';
import type { ServerProfile } from './server-profile.js';
import { serverProfile } from './server-profiles.js';
import { errorTypeForStatus, openAiError } from './openai-error.js';
import { createStepPicker } from './match-step.js';
import { formatPath, parseScript } from './parse-script.js';
import { type RecordedRequest, type Recording, recordRequest } from './recorded-request.js';
import { ScriptStep, type ScriptStepInput } from './script-step.js';
import { trackServer, untrackServer } from './test-resources.js';

export type { RecordedRequest } from './recorded-request.js';

/** A list of steps, one per chat-completions request, or a function that picks the step. */
export type FakeLlmScript = ScriptStepInput[] | ((request: RecordedRequest, index: number) => ScriptStepInput | Promise<ScriptStepInput>);

export interface FakeLlmOptions {
  script: FakeLlmScript;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** The model `GET /v1/models` lists; responses echo the request's model. Defaults to `fake-model`. */
  model?: string;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401, like the real API. */
  apiKey?: string;
  /** The server to imitate (see SERVER_PROFILES): a profile or its name. Defaults to `openai`. */
  profile?: ServerProfile | string;
  /** Called with each request once it is answered (its `status` set): the CLI's `--log FILE`. */
  onAnswered?: (request: RecordedRequest) => void;
}

export interface FakeLlm {
  /** What the openai SDK takes as `baseURL`, e.g. `http://127.0.0.1:40123/v1`. */
  baseUrl: string;
  /** The origin, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Every request received, in order, including rejected ones. */
  requests: RecordedRequest[];
  /** How many script steps have been used (one per accepted chat-completions request). */
  readonly stepsUsed: number;
  close(): Promise<void>;
}

const completionPaths = new Set(['/v1/chat/completions', '/chat/completions']);
const modelPaths = new Set(['/v1/models', '/models']);

/** Starts a scripted OpenAI-compatible chat-completions server on a loopback port. */
export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const script = Array.isArray(options.script) ? parseScript(options.script, 'the script given to startFakeLlm') : options.script;
  const model = options.model ?? 'fake-model';
  const profile = typeof options.profile === 'object' ? options.profile : serverProfile(options.profile ?? 'openai');
  const { dialect } = profile;
  const requests: RecordedRequest[] = [];
  const readCompletion = createCompletionReader();
  const closing = new AbortController();
  const created = Math.floor(Date.now() / 1000);
  let stepsUsed = 0;
  const pickStep = Array.isArray(script) ? createStepPicker(script) : undefined;

  async function chooseStep(record: RecordedRequest, index: number): Promise<ScriptStep | string> {
    if (Array.isArray(script)) return pickStep!(() => record.body, index);
    let step: unknown;
    try {
      step = await script(record, index);
    } catch (error) {
      return `delta-fake-llm: the script function threw for request ${index + 1}: ${(error as Error).message ?? error}`;
    }
    const result = ScriptStep.safeParse(step);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    return `delta-fake-llm: the script function returned an invalid step for request ${index + 1}: field '${formatPath(issue.path)}': ${issue.message}`;
  }

  async function answerCompletion(recording: Recording, accepted: AcceptedCompletion, response: ServerResponse): Promise<number> {
    const { record } = recording;
    const index = stepsUsed++;
    const step = await chooseStep(record, index);
    if (typeof step === 'string') {
      // x-should-retry stops the openai SDK from retrying a request no later step can answer.
      sendJson(response, 500, openAiError(step, { type: 'server_error' }), { 'x-should-retry': 'false' });
      return 500;
    }
    if (step.delay_ms) {
      await sleep(step.delay_ms, undefined, { signal: closing.signal }).catch(() => undefined);
      if (closing.signal.aborted) return 0;
    }
    if (step.error) {
      const { status, message, type, code, should_retry: shouldRetry, retry_after: retryAfter } = step.error;
      const text = message ?? `delta-fake-llm: scripted error ${status} for request ${index + 1}`;
      const headers: Record<string, string> = shouldRetry === undefined ? {} : { 'x-should-retry': String(shouldRetry) };
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      sendJson(response, status, openAiError(text, { type: type ?? errorTypeForStatus(status), code: code ?? null }), headers);
      return status;
    }
    // A script that read request.body may have changed it, and the reply follows the body as it left it.
    const bodyRead = recording.bodyParsed();
    const body = bodyRead ? record.body : (accepted.fields as RecordedRequest['body']);
    const writing = { dropAfterBytes: step.drop_after_bytes, stallMs: step.stall_ms, signal: closing.signal };
    if (step.raw) {
      const text = step.raw.body ?? JSON.stringify(step.raw.json);
      const headers: Record<string, string> = step.raw.content_type === undefined ? {} : { 'content-type': step.raw.content_type };
      await writeAnswer(response, [text], { ...writing, status: step.raw.status, headers });
      return step.raw.status;
    }
    const identity: CompletionIdentity = { requestIndex: index, id: dialect.completionId(index), created, model: body.model as string };
    const streamed = body.stream === true;
    const sse = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };
    if (step.large) {
      const headers = streamed ? sse : { 'content-type': 'application/json' };
      await writeAnswer(response, largeAnswer(step.large, identity, streamed), {
        ...writing,
        status: 200,
        headers,
        pieceDelayMs: step.large.chunk_delay_ms,
      });
      return 200;
    }
    const reply = buildReply(step, index, bodyRead ? promptLength(body) : accepted.promptLength, dialect.toolCallId);
    if (streamed) {
      const frames = streamChunks(reply, identity, body.stream_options?.include_usage === true, dialect).map(
        (chunk) => `data: ${JSON.stringify(chunk)}\n\n`,
      );
      const keepAlive = dialect.stream.keepAlive;
      if (keepAlive) {
        // Before the first event (the server is busy) and once more mid-stream, as the documentation says it may.
        frames.splice(1, 0, `${keepAlive}\n\n`);
        frames.unshift(`${keepAlive}\n\n`);
      }
      frames.push('data: [DONE]\n\n');
      await writeAnswer(response, frames, { ...writing, status: 200, headers: sse });
    } else {
      const text = `${dialect.jsonPrefix ?? ''}${JSON.stringify(completionBody(reply, identity, dialect))}${dialect.jsonSuffix ?? ''}`;
      const headers = { 'content-type': dialect.jsonContentType ?? 'application/json' };
      const pieces = dialect.jsonPrefix ? [dialect.jsonPrefix, text.slice(dialect.jsonPrefix.length)] : [text];
      await writeAnswer(response, pieces, { ...writing, status: 200, headers });
    }
    return 200;
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const bytes = await readBody(request);
    const method = request.method ?? 'GET';
    const path = request.url ?? '/';
    const pathname = path.split('?')[0]!;
    const unauthorized = options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`;
    const read = !unauthorized && method === 'POST' && completionPaths.has(pathname) ? readCompletion(bytes) : null;
    const recording = recordRequest({ method, path, headers: { ...request.headers }, rawBody: read?.text ?? bytes.toString('utf8') });
    const { record } = recording;
    requests.push(record);
    try {
      await respond(request, response, recording, read, unauthorized, method, pathname);
    } finally {
      options.onAnswered?.(record);
    }
  }

  async function respond(
    request: IncomingMessage,
    response: ServerResponse,
    recording: Recording,
    read: ReturnType<typeof readCompletion> | null,
    unauthorized: boolean,
    method: string,
    pathname: string,
  ): Promise<void> {
    const { record } = recording;
    if (unauthorized) {
      const message = request.headers.authorization
        ? 'Incorrect API key provided. You can find your API key in your delta-fake-llm options.'
        : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
      record.status = 401;
      sendJson(response, 401, openAiError(message, { code: request.headers.authorization ? 'invalid_api_key' : null }));
    } else if (read?.problem) {
      const { message, param, code } = read.problem;
      record.status = 400;
      sendJson(response, 400, openAiError(message, { param, code }));
    } else if (read && dialect.refuse?.(record.body)) {
      record.status = 400;
      sendJson(response, 400, openAiError(dialect.refuse(record.body)!, { param: 'messages' }));
    } else if (read) {
      record.status = await answerCompletion(recording, read.accepted, response);
    } else if (method === 'GET' && modelPaths.has(pathname)) {
      record.status = 200;
      sendJson(response, 200, { object: 'list', data: [{ id: model, object: 'model', created, owned_by: 'delta-fake-llm' }] });
    } else {
      record.status = 404;
      sendJson(response, 404, openAiError(`Invalid URL (${method} ${pathname})`));
    }
  }

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      sendJson(response, 500, openAiError(`delta-fake-llm: ${String(error)}`, { type: 'server_error' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  let closed: Promise<void> | undefined;
  const fake: FakeLlm = {
    baseUrl: `${url}/v1`,
    url,
    requests,
    get stepsUsed() {
      return stepsUsed;
    },
    close() {
      untrackServer(fake);
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
  trackServer(fake);
  return fake;
}
