import { StringDecoder } from 'node:string_decoder';
import { bodyPreview, mediaType } from './body-preview.js';
import type { HttpAnswer } from './http-exchange.js';
import { type StreamDelta, StreamAssembler } from './stream-assembler.js';
import { SseReader } from './sse-reader.js';
import { ModelWireError } from './wire-errors.js';
import { transientStatus } from './retry-policy.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '@delta/errors';

/** The default cap on one response: 32 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface ReadOptions {
  endpoint: string;
  maxBytes: number;
  onDelta?: ((delta: StreamDelta) => void) | undefined;
  /** Every chunk of the body as it arrives, for the audit record of a stream. */
  onBytes?: ((chunk: Buffer) => void) | undefined;
}

/** What was read: the chat completion in the non-streamed shape, and whether it came as a stream. */
export interface ReadAnswer {
  body: unknown;
  streamed: boolean;
}

function tooLarge(options: ReadOptions, status: number): ModelWireError {
  const mib = (options.maxBytes / 1024 / 1024).toFixed(options.maxBytes % (1024 * 1024) === 0 ? 0 : 1);
  return new ModelWireError(
    `The model endpoint ${options.endpoint} sent a response larger than the ${mib} MiB limit (HTTP ${status}); the engine stopped reading it.`,
    {
      code: 'MODEL_RESPONSE_TOO_LARGE',
      transient: false,
      status,
      hint: 'Raise llm.max_response_bytes in agent.yaml if answers this large are expected.',
    },
  );
}

function isEventStream(contentType: string | undefined, head: Buffer): boolean {
  if (mediaType(contentType) === 'text/event-stream') return true;
  // A server that streams without saying so (or says application/json): the body starts like SSE.
  const start = head.subarray(0, 64).toString('utf8').trimStart();
  return start.startsWith('data:') || start.startsWith(': ') || start.startsWith('event:');
}

/**
 * Reads a successful answer, within the size cap: a JSON body whole, or an event stream event by event
 * (whatever the request asked for: some servers answer one way regardless). Throws a ModelWireError that
 * names the endpoint, status, content type and the body's first 200 bytes when it is not a chat completion.
 */
export async function readAnswer(answer: HttpAnswer, options: ReadOptions): Promise<ReadAnswer> {
  const contentType = answer.headers['content-type'];
  const chunks: Buffer[] = [];
  // A JSON body is decoded as it arrives, so that its bytes are not held beside its text.
  const decoder = new StringDecoder('utf8');
  const texts: string[] = [];
  let head: Buffer | undefined;
  let total = 0;
  let stream: { reader: SseReader; assembler: StreamAssembler; done: boolean } | undefined;
  let mode: 'unknown' | 'json' | 'stream' = 'unknown';
  for await (const chunk of answer.chunks) {
    total += chunk.length;
    if (total > options.maxBytes) {
      answer.discard();
      throw tooLarge(options, answer.status);
    }
    options.onBytes?.(chunk);
    if (mode === 'unknown') {
      chunks.push(chunk);
      const first = Buffer.concat(chunks);
      // Leading blank lines are how DeepSeek keeps a non-streamed request alive: wait for real bytes.
      if (first.toString('utf8').trim() === '' && first.length < 4096) continue;
      chunks.length = 0;
      if (isEventStream(contentType, first)) {
        mode = 'stream';
        stream = { reader: new SseReader(), assembler: new StreamAssembler(), done: false };
        feed(stream, stream.reader.push(first), options);
      } else {
        mode = 'json';
        head = first.subarray(0, 4096);
        texts.push(decoder.write(first));
      }
      continue;
    }
    if (mode === 'stream') feed(stream!, stream!.reader.push(chunk), options);
    else {
      // The body's start is kept for the error that quotes it.
      if (head!.length < 4096) head = Buffer.concat([head!, chunk.subarray(0, 4096 - head!.length)]);
      texts.push(decoder.write(chunk));
    }
  }
  if (stream) {
    feed(stream, stream.reader.end(), options);
    if (!stream.done && !stream.assembler.finished) {
      throw new ModelWireError(
        `The model endpoint ${options.endpoint} ended its event stream before the answer was complete (no finish_reason and no [DONE]).`,
        { code: 'MODEL_STREAM_INCOMPLETE', transient: true, status: answer.status, hint: 'The engine retries it.' },
      );
    }
    return { body: stream.assembler.completion(), streamed: true };
  }
  // Blank lines only (or nothing) never left the first chunks.
  if (mode === 'unknown') head = Buffer.concat(chunks);
  texts.push(decoder.end());
  const text = mode === 'unknown' ? head!.toString('utf8') : texts.join('');
  texts.length = 0;
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeep(options.endpoint, answer.status, text);
  try {
    return { body: JSON.parse(text), streamed: false };
  } catch {
    throw notJson(options.endpoint, answer.status, contentType, head ?? Buffer.alloc(0), total, text);
  }
}

/** A body nested deeper than MAX_JSON_DEPTH: refused whole, its text kept for the run's records. */
function tooDeep(endpoint: string, status: number, text: string): ModelWireError {
  return new ModelWireError(
    `The model endpoint ${endpoint} answered HTTP ${status} with JSON nested more than ${MAX_JSON_DEPTH} levels deep; the engine does not read it.`,
    {
      code: 'MODEL_BAD_RESPONSE',
      transient: false,
      status,
      rawBody: text,
      hint: 'No chat completion nests this deep: the server or a proxy in front of it is broken. The body is kept as response.raw under io/invocations/ of this run.',
    },
  );
}

function notJson(
  endpoint: string,
  status: number,
  contentType: string | undefined,
  head: Buffer,
  total: number,
  text: string,
): ModelWireError {
  const what = total === 0 ? 'an empty body' : `a body that is not JSON: "${bodyPreview(head)}" (first 200 bytes)`;
  return new ModelWireError(`The model endpoint ${endpoint} answered HTTP ${status} (${mediaType(contentType)}) with ${what}.`, {
    code: 'MODEL_BAD_RESPONSE',
    transient: true,
    status,
    rawBody: text,
    hint: 'A proxy or gateway in front of the model often answers like this while it is overloaded; the engine retries it. If it persists, check DELTA_BASE_URL (it should end in /v1 for most servers).',
  });
}

function feed(
  stream: { assembler: StreamAssembler; done: boolean },
  events: Array<{ data: string; event: string | undefined }>,
  options: ReadOptions,
) {
  for (const event of events) {
    if (stream.done) continue;
    const data = event.data.trim();
    if (data === '') continue;
    if (data === '[DONE]') {
      stream.done = true;
      continue;
    }
    if (nestsDeeperThan(data, MAX_JSON_DEPTH)) {
      throw new ModelWireError(
        `The model endpoint ${options.endpoint} sent a stream event nested more than ${MAX_JSON_DEPTH} levels deep; the engine does not read it.`,
        {
          code: 'MODEL_BAD_RESPONSE',
          transient: false,
          hint: 'The stream as it came is kept as response.sse under io/invocations/ of this run.',
        },
      );
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ModelWireError(
        `The model endpoint ${options.endpoint} sent an event that is not JSON in its stream: "${bodyPreview(Buffer.from(data))}" (first 200 bytes).`,
        { code: 'MODEL_BAD_RESPONSE', transient: true, hint: 'The engine retries it.' },
      );
    }
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
      throw new ModelWireError(
        `The model endpoint ${options.endpoint} sent a stream event that is not a chat.completion.chunk: ${data.slice(0, 200)}`,
        {
          code: 'MODEL_BAD_RESPONSE',
          transient: true,
          hint: 'The engine retries it.',
        },
      );
    }
    const object = chunk as Record<string, unknown>;
    if (object.error !== undefined || event.event === 'error') throw streamError(object.error ?? object, options.endpoint);
    stream.assembler.add(object, options.onDelta);
  }
}

/** An error sent inside a stream that began with HTTP 200 (OpenRouter, LiteLLM and Ollama do this mid-generation). */
function streamError(error: unknown, endpoint: string): ModelWireError {
  const record = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const message =
    typeof record.message === 'string' ? record.message : typeof error === 'string' ? error : JSON.stringify(error).slice(0, 200);
  const code = typeof record.code === 'number' ? record.code : Number(record.status ?? Number.NaN);
  return new ModelWireError(`The model endpoint ${endpoint} reported an error in the middle of its stream: ${message}`, {
    code: 'MODEL_STREAM_ERROR',
    transient: Number.isFinite(code) ? transientStatus(code) : true,
    hint: 'The engine retries it; the partial answer is discarded.',
  });
}
