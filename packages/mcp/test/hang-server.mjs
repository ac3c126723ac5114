#!/usr/bin/env node
// An MCP stdio server for tests. `echo` answers with its text and this process's pid; `hang` writes this
// process's pid to $HANG_PID_FILE and never answers, so a test can kill the server in the middle of a call.
import { writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'hang-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'echo',
      description: 'Answers with the text it is given.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    { name: 'hang', description: 'Never answers.', inputSchema: { type: 'object', properties: {} } },
    {
      name: 'env',
      description: 'Answers with the value of an environment variable.',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  if (request.params.name === 'echo') return { content: [{ type: 'text', text: `echo: ${args.text} (pid ${process.pid})` }] };
  if (request.params.name === 'env') return { content: [{ type: 'text', text: `${args.name}=${process.env[args.name] ?? '(unset)'}` }] };
  if (request.params.name === 'hang') {
    process.stderr.write(`hanging in pid ${process.pid}\n`);
    writeFileSync(process.env.HANG_PID_FILE, String(process.pid));
    return new Promise(() => undefined);
  }
  return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] };
});
process.stderr.write('hang-server ready\n');
await server.connect(new StdioServerTransport());
