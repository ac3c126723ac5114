// A Streamable HTTP MCP server for tests, in the test's own process: `whoami` answers with the
// Authorization header of the request, so a test sees what the engine sent.
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

function mcpServer() {
  const server = new Server({ name: 'http-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'whoami', description: 'Says who is asking.', inputSchema: { type: 'object', properties: {} } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => ({
    content: [{ type: 'text', text: `authorization: ${extra.requestInfo?.headers?.authorization ?? '(none)'}` }],
  }));
  return server;
}

/** Starts the server on a free port; resolves to its URL and a close function. */
export async function startHttpMcpServer() {
  const http = createServer(async (request, response) => {
    // Stateless: a server and a transport per request, as the SDK's documentation shows.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcpServer();
    response.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(resolve);
      }),
  };
}
