#!/usr/bin/env node
// An MCP stdio server for tests. `echo` answers with its text and this process's pid; `hang` writes this
// process's pid to $HANG_PID_FILE and never answers, so a test can kill the server in the middle of a call.
// `write` writes a file and `connect` opens a TCP connection to 127.0.0.1, so a test can see what a
// (sandboxed) server may do; `sh` runs a shell script file, so that a test can attack the sandbox from a
// server as it does from a tool. `large` answers with a text of any size.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
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
      name: 'write',
      description: 'Writes text to a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path', 'text'] },
    },
    {
      name: 'connect',
      description: 'Opens a TCP connection to a port of 127.0.0.1.',
      inputSchema: { type: 'object', properties: { port: { type: 'number' } }, required: ['port'] },
    },
    {
      name: 'large',
      description: 'Answers with a text of the given number of bytes.',
      inputSchema: { type: 'object', properties: { bytes: { type: 'number' } }, required: ['bytes'] },
    },
    {
      name: 'sh',
      description: 'Runs a shell script file with arguments; answers with its exit code and output.',
      inputSchema: {
        type: 'object',
        properties: { script: { type: 'string' }, args: { type: 'array', items: { type: 'string' } } },
        required: ['script'],
      },
    },
    {
      name: 'env',
      // Which sandbox it runs in, for a test that only lists tools (delta tool expand).
      description: `Answers with the value of an environment variable (this server runs in sandbox ${process.env.DELTA_SANDBOX ?? 'none'}).`,
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  if (request.params.name === 'echo') return { content: [{ type: 'text', text: `echo: ${args.text} (pid ${process.pid})` }] };
  if (request.params.name === 'large') return { content: [{ type: 'text', text: 'x'.repeat(args.bytes) }] };
  if (request.params.name === 'env') return { content: [{ type: 'text', text: `${args.name}=${process.env[args.name] ?? '(unset)'}` }] };
  if (request.params.name === 'write') {
    try {
      writeFileSync(args.path, args.text);
      return { content: [{ type: 'text', text: `wrote ${args.path}` }] };
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `cannot write ${args.path}: ${error.code ?? error.message}` }] };
    }
  }
  if (request.params.name === 'connect') {
    const outcome = await new Promise((resolve) => {
      const socket = connect(args.port, '127.0.0.1', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error) => resolve(`cannot connect: ${error.code ?? error.message}`));
    });
    return { isError: outcome !== 'connected', content: [{ type: 'text', text: `${outcome}` }] };
  }
  if (request.params.name === 'sh') {
    const ran = spawnSync('sh', [args.script, ...(args.args ?? [])], { encoding: 'utf8' });
    return { isError: ran.status !== 0, content: [{ type: 'text', text: `exit ${ran.status}\n${ran.stdout}${ran.stderr}` }] };
  }
  if (request.params.name === 'hang') {
    process.stderr.write(`hanging in pid ${process.pid}\n`);
    writeFileSync(process.env.HANG_PID_FILE, String(process.pid));
    return new Promise(() => undefined);
  }
  return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] };
});
process.stderr.write('hang-server ready\n');
await server.connect(new StdioServerTransport());
