import http from 'node:http';
import https from 'node:https';

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** Raised when nothing arrived for the idle time: no response, or no next chunk of it. */
export class IdleTimeout extends Error {
  constructor(readonly idleMs: number) {
    super(`no data for ${idleMs} ms`);
  }
}

export interface HttpPostOptions {
  url: URL;
  headers: Record<string, string>;
  body: Uint8Array;
  signal?: AbortSignal | undefined;
  /** The longest wait for the response to start, and between two chunks of it. */
  idleTimeoutMs: number;
  /** The longest the whole exchange may take, its body read to the end included: a server that trickles a byte at a time ends too. */
  attemptTimeoutMs: number;
}

/** Raised when the whole exchange (request, response and all of its body) took longer than its limit. */
export class AttemptTimeout extends Error {
  constructor(readonly limitMs: number) {
    super(`not done within ${limitMs} ms`);
  }
}

/** An answer whose headers have arrived; its body is read chunk by chunk. */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body's chunks as they arrive. Throws IdleTimeout, the abort reason, or the connection's error. */
  chunks: AsyncIterable<Buffer>;
  /** Stops reading and closes the connection (an answer not read to its end cannot be kept alive). */
  discard(): void;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

/**
 * POSTs a body over node's http or https with keep-alive and resolves once the response's headers are in.
 * Nothing is buffered: the caller reads the body as a stream, so it decides how much it keeps. The idle
 * timer runs from the request until the body ends, reset by every chunk; the attempt's deadline is never
 * reset; the signal stops it all at once.
 */
export async function httpPost(options: HttpPostOptions): Promise<HttpAnswer> {
  for (let stale = 0; ; stale += 1) {
    try {
      return await postOnce(options);
    } catch (error) {
      // A kept-alive connection the server had closed (it may close an idle one at any time): the request
      // never reached it, so it goes again on another connection, whatever the retry policy. A fresh
      // connection's failure is the server's, and the wire's retries judge it.
      if (!(error instanceof StaleConnection) || stale >= MAX_STALE_CONNECTIONS || options.signal?.aborted) throw unwrap(error);
    }
  }
}

/** How many kept-alive connections in a row may turn out closed before the error is the caller's. */
const MAX_STALE_CONNECTIONS = 4;

/** A reused connection that failed before any byte of the response: the server had closed it. */
class StaleConnection extends Error {
  constructor(readonly original: Error) {
    super(original.message);
  }
}

function unwrap(error: unknown): unknown {
  return error instanceof StaleConnection ? error.original : error;
}

function postOnce(options: HttpPostOptions): Promise<HttpAnswer> {
  const { url, signal } = options;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new TypeError(`unsupported protocol ${url.protocol} in ${url.href}`));

  return new Promise<HttpAnswer>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-length': String(options.body.byteLength) },
      agent,
    });
    let response: http.IncomingMessage | undefined;
    let timer: NodeJS.Timeout | undefined;
    let deadline: NodeJS.Timeout | undefined;
    const stop = (error: Error) => {
      clearTimeout(timer);
      if (response) response.destroy(error);
      else request.destroy(error);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stop(new IdleTimeout(options.idleTimeoutMs)), options.idleTimeoutMs);
    };
    const onAbort = () => stop(abortReason(signal!));
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    arm();
    deadline = setTimeout(() => {
      clearTimeout(timer);
      stop(new AttemptTimeout(options.attemptTimeoutMs));
    }, options.attemptTimeoutMs);
    request.once('error', (error: NodeJS.ErrnoException) => {
      finish();
      const closedByServer = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      reject(request.reusedSocket && response === undefined && closedByServer ? new StaleConnection(error) : error);
    });
    request.once('response', (incoming) => {
      response = incoming;
      arm();
      incoming.once('end', finish);
      incoming.once('close', finish);
      // Each chunk resets the idle timer (a 'data' listener would start the flow before the caller reads).
      async function* chunks(): AsyncGenerator<Buffer> {
        for await (const chunk of incoming) {
          arm();
          yield chunk as Buffer;
        }
      }
      resolve({
        status: incoming.statusCode ?? 0,
        headers: incoming.headers,
        chunks: chunks(),
        discard: () => {
          finish();
          incoming.destroy();
        },
      });
    });
    request.end(options.body);
  });
}
