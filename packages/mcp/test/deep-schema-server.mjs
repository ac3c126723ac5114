#!/usr/bin/env node
// An MCP stdio server for tests that sends JSON nested $DEEP_LEVELS levels deep (100000 unless set): `deep`
// has an input schema that deep, `deep_out` an output schema that deep, and `deep_answer` answers with
// structured content that deep; `echo` is ordinary. It speaks JSON-RPC by hand and builds the deep JSON as
// text, iteratively: the SDK's own server would overflow its stack serialising it.
import { createInterface } from 'node:readline';

const levels = Number(process.env.DEEP_LEVELS ?? 100000);
const deepSchema = `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
const tools = [
  `{"name":"deep","description":"An input schema nested ${levels} levels deep.","inputSchema":${deepSchema}}`,
  `{"name":"deep_out","description":"An output schema nested ${levels} levels deep.","inputSchema":{"type":"object"},"outputSchema":${deepSchema}}`,
  '{"name":"deep_answer","description":"Answers with structured content nested deep.","inputSchema":{"type":"object"}}',
  '{"name":"echo","description":"Answers with its text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}',
];

function send(text) {
  process.stdout.write(`${text}\n`);
}

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.id === undefined) continue;
  const id = JSON.stringify(message.id);
  const reply = (result) => send(`{"jsonrpc":"2.0","id":${id},"result":${result}}`);
  if (message.method === 'initialize') {
    const version = JSON.stringify(message.params.protocolVersion);
    reply(`{"protocolVersion":${version},"capabilities":{"tools":{}},"serverInfo":{"name":"deep-schema-server","version":"1.0.0"}}`);
  } else if (message.method === 'tools/list') {
    reply(`{"tools":[${tools.join(',')}]}`);
  } else if (message.method === 'tools/call' && message.params.name === 'deep_answer') {
    const deep = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    reply(`{"content":[{"type":"text","text":"deep"}],"structuredContent":${deep}}`);
  } else if (message.method === 'tools/call') {
    reply(`{"content":[{"type":"text","text":${JSON.stringify(`echo: ${message.params.arguments?.text}`)}}]}`);
  } else {
    send(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"no method ${message.method}"}}`);
  }
}
