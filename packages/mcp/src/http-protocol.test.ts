// What the client says to a Streamable HTTP server written by hand in this file (no SDK), which records
// every request: the session id and protocol version it is given back, answers as JSON and as an event
// stream, tools/list page by page, a session the server ended (404) started anew, the session closed with
// DELETE, an answer over 10 MiB, and a redirect not followed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { startMcpServers, type McpServers } from './index.js';
import { json, listenOnLoopback } from './loopback-server.test-support.js';

interface Seen {
  method: string;
  session: string | undefined;
  version: string | undefined;
  accept: string | undefined;
  token: string | undefined;
  body: { jsonrpc?: string; id?: unknown; method?: string; params?: unknown; result?: unknown } | undefined;
}

type Reply = (response: ServerResponse, message: NonNullable<Seen['body']>) => void;

function events(response: ServerResponse, messages: unknown[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  for (const message of messages) response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  response.end();
}

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

/** A server that records what it is sent; `replies` answers requests by method (or by tool name for tools/call). */
async function startServer(replies: Record<string, Reply>) {
  const seen: Seen[] = [];
  let sessions = 0;
  const http = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const body = text === '' ? undefined : (JSON.parse(text) as Seen['body']);
    const header = (name: string) => request.headers[name] as string | undefined;
    seen.push({
      method: request.method!,
      session: header('mcp-session-id'),
      version: header('mcp-protocol-version'),
      accept: header('accept'),
      token: header('authorization'),
      body,
    });
    if (request.method === 'DELETE') return void response.writeHead(200).end();
    if (body?.method === 'initialize') {
      sessions += 1;
      const result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } };
      return json(response, { jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': `session-${sessions}` });
    }
    if (body?.id === undefined) return void response.writeHead(202).end();
    const name = body.method === 'tools/call' ? (body.params as { name: string }).name : body.method!;
    replies[name]!(response, body);
  });
  const listening = await listenOnLoopback(http);
  return { url: `${listening.origin}/mcp`, seen, close: listening.close };
}

const listTools: Reply = (response, message) => {
  const cursor = (message.params as { cursor?: string }).cursor;
  // The first page as an event stream with a notification before the answer, the second as JSON.
  if (cursor === undefined) {
    const notice = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'listing' } };
    events(response, [notice, { jsonrpc: '2.0', id: message.id, result: { tools: [tool('echo')], nextCursor: 'two' } }]);
  } else json(response, { jsonrpc: '2.0', id: message.id, result: { tools: [tool('expire'), tool('large')] } });
};

let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  await cleanupTempDirs();
});

async function start(url: string) {
  const workDir = await createTempDir('mcp-http-');
  const config = { name: 'raw', url, headers: { Authorization: 'Bearer sk-raw-0000' }, timeout_ms: 5000 };
  return startMcpServers({
    servers: [{ config, file: 'agent.yaml', field: 'mcp_servers[0]' }],
    agentHome: workDir,
    workDir,
    env: {},
    logDir: workDir,
  });
}

describe('the MCP client on the wire (Streamable HTTP)', () => {
  it('keeps the session and version it is given, reads JSON and event streams, starts a new session after a 404, and ends it with DELETE', async () => {
    const server = await startServer({
      'tools/list': listTools,
      echo: (response, message) =>
        events(response, [{ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'echoed' }] } }]),
      expire: (response) => void response.writeHead(404).end(),
    });
    try {
      servers = await start(server.url);
      expect(servers.tools.map((offered) => offered.name)).toEqual(['mcp__raw__echo', 'mcp__raw__expire', 'mcp__raw__large']);
      expect(await servers.call('mcp__raw__echo', {})).toMatchObject({ status: 'SUCCESS', text: 'echoed' });
      expect((await servers.call('mcp__raw__expire', {})).text).toBe(
        'Error: the MCP server raw stopped during the call. It was restarted: call the tool again if you still need it.',
      );
      expect(await servers.call('mcp__raw__echo', {})).toMatchObject({ status: 'SUCCESS', text: 'echoed' });
      await servers.close();
      servers = undefined;

      const accept = 'application/json, text/event-stream';
      const token = 'Bearer sk-raw-0000';
      const post = (session: string | undefined, body: Seen['body']) => ({
        method: 'POST',
        session,
        version: session === undefined ? undefined : '2025-06-18',
        accept,
        token,
        body,
      });
      const opened = (session: string) => [
        post(undefined, expect.objectContaining({ method: 'initialize' })),
        post(session, { jsonrpc: '2.0', method: 'notifications/initialized' }),
      ];
      // A restarted connection lists the tools again, as a restarted stdio server does.
      const listed = (session: string) => [
        post(session, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
        post(session, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'two' } }),
      ];
      expect(server.seen).toEqual([
        ...opened('session-1'),
        ...listed('session-1'),
        post('session-1', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } }),
        post('session-1', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'expire', arguments: {} } }),
        // The session the server no longer knows is over: a new one starts, without a session id.
        ...opened('session-2'),
        ...listed('session-2'),
        post('session-2', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } }),
        { method: 'DELETE', session: 'session-2', version: '2025-06-18', accept: '*/*', token, body: undefined },
      ]);
    } finally {
      await server.close();
    }
  });

  it('an event over 10 MiB is an observation that says so, and the connection goes on', async () => {
    const server = await startServer({
      'tools/list': listTools,
      echo: (response, message) =>
        json(response, { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'after' }] } }),
      large: (response, message) =>
        events(response, [{ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'x'.repeat(11 * 1024 * 1024) }] } }]),
    });
    try {
      servers = await start(server.url);
      expect((await servers.call('mcp__raw__large', {})).text).toBe(
        'Error: the MCP server raw answered with more than the engine reads: the answer was larger than 10 MiB, the most the engine reads; it was discarded. Ask for less at a time',
      );
      expect(await servers.call('mcp__raw__echo', {})).toMatchObject({ status: 'SUCCESS', text: 'after' });
    } finally {
      await server.close();
    }
  });

  it('does not follow a redirect, so that its headers go nowhere else', async () => {
    const server = await startServer({});
    const moved = createServer((_request, response) => response.writeHead(307, { location: server.url }).end());
    const { origin, close } = await listenOnLoopback(moved);
    try {
      await expect(start(`${origin}/old`)).rejects.toMatchObject({
        code: 'MCP_SERVER_FAILED',
        message: expect.stringContaining(
          `could not be started: ${origin}/old answered with a redirect to ${server.url}, which is not followed`,
        ),
      });
      expect(server.seen).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  });
});
