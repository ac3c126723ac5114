import { createParser } from 'eventsource-parser';
import { McpRequestError } from './mcp-request-error.js';
import { HeldBytes } from './message-lines.js';
import { MAX_MESSAGE_BYTES, OVERSIZED_ANSWER, type McpTransport } from './process-transport.js';
import { RpcSession, type JsonRpcMessage } from './rpc-session.js';

/** How long closing a session (HTTP DELETE) may take. */
const CLOSE_TIMEOUT_MS = 2000;

function mediaType(contentType: string | null): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new McpRequestError(`its answer is not JSON: ${text.slice(0, 200)}`, 'protocol');
  }
}

/** A response body read whole (in about its own size, however it comes), unless it is larger than the engine reads. */
export async function readBounded(body: ReadableStream<Uint8Array>): Promise<string> {
  const held = new HeldBytes();
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (held.size + read.value.length > MAX_MESSAGE_BYTES) {
      await reader.cancel();
      throw new McpRequestError(OVERSIZED_ANSWER, 'oversized');
    }
    held.add(read.value);
  }
  return held.bytes().toString('utf8');
}

/**
 * MCP's Streamable HTTP transport, as a client that only asks: each message is POSTed to the server's
 * URL with the configured headers, and a request's answer comes back as application/json or as a
 * text/event-stream of messages. The session id the server gives at initialize (Mcp-Session-Id) and the
 * negotiated protocol version (MCP-Protocol-Version) go with every later request; closing ends the
 * session (HTTP DELETE). Redirects are not followed, so that the headers go to no other address.
 */
export class HttpTransport implements McpTransport {
  readonly session = new RpcSession((message, signal) => this.post(message, signal));
  readonly ending = undefined;
  readonly pid = undefined;
  /** Set once initialize is answered. */
  protocolVersion: string | undefined;
  private sessionId: string | undefined;
  private readonly closing = new AbortController();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  private requestHeaders(): Headers {
    const headers = new Headers();
    if (this.sessionId !== undefined) headers.set('mcp-session-id', this.sessionId);
    if (this.protocolVersion !== undefined) headers.set('mcp-protocol-version', this.protocolVersion);
    for (const [name, value] of Object.entries(this.headers)) headers.set(name, value);
    return headers;
  }

  private async post(message: JsonRpcMessage, settled: AbortSignal): Promise<void> {
    const headers = this.requestHeaders();
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    const withSession = this.sessionId !== undefined;
    const signal = AbortSignal.any([settled, this.closing.signal]);
    try {
      const response = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message), redirect: 'manual', signal });
      await this.answer(message, response, withSession);
    } catch (error) {
      // The request was answered, timed out or was cancelled meanwhile, or the connection closed.
      if (signal.aborted) return;
      if (error instanceof McpRequestError) throw error;
      throw new McpRequestError(`cannot reach ${this.url}: ${reasonOf(error)}`, 'unreachable');
    }
  }

  private async answer(message: JsonRpcMessage, response: Response, withSession: boolean): Promise<void> {
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId !== null) this.sessionId = sessionId;
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new McpRequestError(
        `${this.url} answered with a redirect to ${response.headers.get('location') ?? '(no location)'}, which is not followed so that the headers go nowhere else: set url: to the address it names`,
        'protocol',
      );
    }
    if (response.status === 404 && withSession) {
      await response.body?.cancel();
      // The server no longer knows the session: the connection is over, and a new one starts a new session.
      this.sessionId = undefined;
      this.session.close('the server ended the session (HTTP 404)');
      return;
    }
    if (!response.ok) {
      const text = (await readBounded(response.body ?? new ReadableStream()).catch(() => '')).slice(0, 500).trim();
      throw new McpRequestError(`HTTP ${response.status} ${response.statusText}${text === '' ? '' : `: ${text}`}`.trim(), 'refused');
    }
    const isRequest = typeof message.method === 'string' && message.id !== undefined;
    if (!isRequest || response.body === null) {
      await response.body?.cancel();
      if (isRequest) throw new McpRequestError(`HTTP ${response.status} without a body, in answer to ${message.method}`, 'protocol');
      return;
    }
    let answered = false;
    const receive = (received: unknown) => {
      for (const item of Array.isArray(received) ? received : [received]) {
        if (typeof item === 'object' && item !== null && (item as { id?: unknown }).id === message.id) answered = true;
      }
      this.session.receive(received);
    };
    const type = mediaType(response.headers.get('content-type'));
    if (type === 'application/json') {
      receive(parseJson(await readBounded(response.body)));
    } else if (type === 'text/event-stream') {
      await readEvents(response.body, receive);
    } else {
      await response.body.cancel();
      throw new McpRequestError(
        `answered with content type ${type ?? '(none)'}, neither application/json nor text/event-stream`,
        'protocol',
      );
    }
    if (!answered) throw new McpRequestError(`the server ended its answer to ${message.method} without answering it`, 'protocol');
  }

  async close(): Promise<void> {
    this.session.close('the connection was closed');
    this.closing.abort();
    if (this.sessionId === undefined) return;
    try {
      const response = await fetch(this.url, {
        method: 'DELETE',
        headers: this.requestHeaders(),
        redirect: 'manual',
        signal: AbortSignal.timeout(CLOSE_TIMEOUT_MS),
      });
      await response.body?.cancel();
    } catch {
      // A server gone already, or one that does not end sessions: nothing left to do.
    }
  }
}

/** Reads an event stream to its end, each message event's data parsed as JSON; an event over the limit ends it. */
async function readEvents(body: ReadableStream<Uint8Array>, receive: (message: unknown) => void): Promise<void> {
  let oversized = false;
  const parser = createParser({
    maxBufferSize: MAX_MESSAGE_BYTES,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') oversized = true;
    },
    onEvent: (event) => {
      if (event.event !== undefined && event.event !== 'message') return;
      try {
        receive(JSON.parse(event.data));
      } catch {
        // An event that is not JSON (a keep-alive, say): the stream goes on.
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    parser.feed(decoder.decode(read.value, { stream: true }));
    if (oversized) {
      await reader.cancel();
      throw new McpRequestError(OVERSIZED_ANSWER, 'oversized');
    }
  }
}
