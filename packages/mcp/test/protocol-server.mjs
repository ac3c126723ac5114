#!/usr/bin/env node
// An MCP stdio server for tests, written by hand (no SDK), that appends every message it reads to
// $PROTOCOL_LOG, one JSON line each, so a test sees exactly what the client sent. It lists its tools on two
// pages (nextCursor), asks the client for its roots and pings it before answering tools/list, never answers `slow`, and answers
// initialize with $PROTOCOL_VERSION when set. It ignores SIGTERM and exits when its stdin ends, so that
// whatever the client wrote before closing is logged.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

process.on('SIGTERM', () => undefined);
const log = (message) => appendFileSync(process.env.PROTOCOL_LOG, `${JSON.stringify(message)}\n`);
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const tool = (name) => ({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' } });
let waitingForPing;

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  log(message);
  if (message.id === 'ping-1' && waitingForPing) {
    const { id, cursor } = waitingForPing;
    waitingForPing = undefined;
    send({
      id,
      result: cursor === undefined ? { tools: [tool('first')], nextCursor: 'page-2' } : { tools: [tool('second'), tool('slow')] },
    });
  } else if (message.method === 'initialize') {
    const protocolVersion = process.env.PROTOCOL_VERSION ?? message.params.protocolVersion;
    send({
      id: message.id,
      result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'protocol-server', version: '1' } },
    });
  } else if (message.method === 'tools/list') {
    waitingForPing = { id: message.id, cursor: message.params?.cursor };
    // A request of a capability the client did not declare, then a ping, which it must answer.
    send({ id: 'roots-1', method: 'roots/list' });
    send({ id: 'ping-1', method: 'ping' });
  } else if (message.method === 'tools/call' && message.params.name !== 'slow') {
    send({ id: message.id, result: { content: [{ type: 'text', text: `called ${message.params.name}` }] } });
  }
}
process.exit(0);
