import { SystemError } from '@delta/errors';

/**
 * Why a request to a server got no answer the engine can use: it took longer than timeout_ms, the
 * connection closed (the process exited, the HTTP session ended), an HTTP server could not be reached,
 * the answer was larger than the engine reads, the run was stopped, the server answered with a JSON-RPC error, or with something that is not
 * MCP.
 */
export type McpFailure = 'timeout' | 'closed' | 'unreachable' | 'oversized' | 'aborted' | 'refused' | 'protocol';

/** A request that failed; `rpcCode` is the server's JSON-RPC error code, when it answered with one. */
export class McpRequestError extends SystemError {
  constructor(
    message: string,
    readonly failure: McpFailure,
    readonly rpcCode?: number,
  ) {
    super(message, { code: 'MCP_SERVER_FAILED' });
  }
}
