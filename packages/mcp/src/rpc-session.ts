import { McpRequestError } from './mcp-request-error.js';

/** A JSON-RPC 2.0 message as sent: a request (with an id), a notification, or an answer to the server. */
export type JsonRpcMessage = { jsonrpc: '2.0'; [key: string]: unknown };

/** Sends one message; `signal` aborts when the request it carries has settled (an HTTP answer then stops being read). */
export type SendMessage = (message: JsonRpcMessage, signal: AbortSignal) => Promise<void>;

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: McpRequestError) => void;
}

/**
 * The most answers to the server's own requests that may be on their way at once (written to a stdin it
 * has not read yet, or POSTed and not yet answered). A server that floods the client with requests gets
 * no answer to those past it, so that they take neither memory nor sockets without bound.
 */
export const MAX_ANSWERS_IN_FLIGHT = 32;

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON-RPC side of one connection: requests numbered and matched with their answers, each bounded by
 * a timeout and an optional AbortSignal (either one tells the server with notifications/cancelled), and
 * the server's own requests answered (ping; any other method is not found: the engine offers the server
 * no capability). The transport hands over each message it reads (`receive`) and says when it closed.
 */
export class RpcSession {
  private lastId = 0;
  private readonly pending = new Map<number, Pending>();
  private closedBecause: string | undefined;
  private answersInFlight = 0;

  constructor(private readonly send: SendMessage) {}

  get isClosed(): boolean {
    return this.closedBecause !== undefined;
  }

  request(method: string, params: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    if (this.closedBecause !== undefined) return Promise.reject(new McpRequestError(this.closedBecause, 'closed'));
    if (signal?.aborted) return Promise.reject(new McpRequestError(`${method} was not sent: the run was stopped`, 'aborted'));
    const id = ++this.lastId;
    const settled = new AbortController();
    return new Promise((resolve, reject) => {
      const cancel = (error: McpRequestError) => {
        const pending = this.settle(id);
        if (pending === undefined) return;
        pending.reject(error);
        this.notify('notifications/cancelled', { requestId: id, reason: error.message });
      };
      const timer = setTimeout(
        () => cancel(new McpRequestError(`no answer to ${method} within ${timeoutMs} ms`, 'timeout')),
        // A longer delay would overflow the timer and fire at once.
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
      const onAbort = () => cancel(new McpRequestError(`${method} was cancelled: the run was stopped`, 'aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        settled.abort();
      };
      this.pending.set(id, {
        method,
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.send({ jsonrpc: '2.0', id, method, params }, settled.signal).catch((error: unknown) => {
        this.settle(id)?.reject(
          error instanceof McpRequestError
            ? error
            : new McpRequestError(`${method} could not be sent: ${error instanceof Error ? error.message : String(error)}`, 'protocol'),
        );
      });
    });
  }

  /** Sends a notification; one that cannot be sent is of no consequence (the connection is closing). */
  notify(method: string, params?: Record<string, unknown>): void {
    if (this.closedBecause !== undefined) return;
    const message: JsonRpcMessage = { jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) };
    this.send(message, new AbortController().signal).catch(() => undefined);
  }

  /** One message read from the server (or a batch of them, as revision 2025-03-26 allows). Anything that is not JSON-RPC is left unread. */
  receive(message: unknown): void {
    if (Array.isArray(message)) {
      for (const item of message) if (!Array.isArray(item)) this.receive(item);
      return;
    }
    if (!isObject(message)) return;
    if (typeof message.method === 'string') {
      if (message.id === undefined || this.answersInFlight >= MAX_ANSWERS_IN_FLIGHT) return;
      // The server's own request: a ping is answered; the engine declares no capability for anything else.
      const answer =
        message.method === 'ping' ? { result: {} } : { error: { code: -32601, message: `the client does not offer ${message.method}` } };
      this.answersInFlight += 1;
      this.send({ jsonrpc: '2.0', id: message.id, ...answer }, new AbortController().signal)
        .catch(() => undefined)
        .finally(() => {
          this.answersInFlight -= 1;
        });
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.settle(message.id);
    if (pending === undefined) return;
    if (isObject(message.error)) {
      const code = typeof message.error.code === 'number' ? message.error.code : undefined;
      const text = typeof message.error.message === 'string' ? message.error.message : 'no message';
      pending.reject(new McpRequestError(`${text} (JSON-RPC error ${code ?? 'without a code'})`, 'refused', code));
    } else if ('result' in message) pending.resolve(message.result);
    else pending.reject(new McpRequestError(`its answer to ${pending.method} has neither a result nor an error`, 'protocol'));
  }

  /** Every request waiting fails with this error (an answer too large to read: which one it was is unknown). */
  failPending(error: McpRequestError): void {
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
  }

  /** The connection closed: every request waiting, and every later one, fails saying why. */
  close(reason: string): void {
    if (this.closedBecause !== undefined) return;
    this.closedBecause = reason;
    for (const id of [...this.pending.keys()]) {
      const pending = this.settle(id)!;
      pending.reject(new McpRequestError(`${reason} before answering ${pending.method}`, 'closed'));
    }
  }

  /** The answer to a request has come (or will never): it is no longer waited for. */
  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    return pending;
  }
}
