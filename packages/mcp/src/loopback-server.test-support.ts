// What the HTTP tests of the MCP client share: a real node:http server on a free loopback port.
import type { Server, ServerResponse } from 'node:http';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Closes the server and every connection it still holds. */
  close(): Promise<void>;
}

/** Starts `server` listening on a free port of 127.0.0.1. */
export async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with `message` as JSON, status 200. */
export function json(response: ServerResponse, message: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(message));
}
