#!/usr/bin/env node
// An MCP stdio server for tests that attacks its client, written by hand (no SDK). It answers initialize
// and tools/list as a server should (unless $HOSTILE_LIST names an attack on the listing), then answers
// each tools/call by the attack its tool's name names; `echo` answers honestly, so that a test sees the
// connection still works after an attack. Every line it reads is appended to $HOSTILE_LOG when set.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const out = process.stdout;
const frame = (message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
const send = (message) => out.write(frame(message));
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const tool = (name) => ({ name, inputSchema: { type: 'object' } });
const TOOLS = [
  'echo',
  'byte_by_byte',
  'foreign_ids',
  'twice',
  'proto',
  'non_utf8',
  'ping_flood',
  'exit_mid_answer',
  'close_stdout',
  'stderr_flood',
  'deep',
  'content_not_list',
  'text_not_string',
  'many_items',
  'long_line',
  'answers_read',
];

/** Writes `data` in pieces of `size` bytes, each once the last has been taken. */
async function trickle(data, size) {
  for (let start = 0; start < data.length; start += size) {
    if (!out.write(data.subarray(start, start + size))) await new Promise((resolve) => out.once('drain', resolve));
  }
}

/** A listing attack, by $HOSTILE_LIST: the answer to tools/list page `cursor`. */
function listing(id, cursor) {
  const page = Number(cursor ?? 0);
  switch (process.env.HOSTILE_LIST) {
    case 'endless-large-pages': {
      // About 9 MiB of small tools on every page, and always another page.
      const tools = Array.from({ length: 180_000 }, (_, index) => tool(`t${page}_${index}`));
      return send({ id, result: { tools, nextCursor: String(page + 1) } });
    }
    case 'endless-small-pages':
      return send({ id, result: { tools: [tool(`t${page}`)], nextCursor: String(page + 1) } });
    case 'colliding-names':
      return send({ id, result: { tools: ['echo', 'ping_flood', 'read.file', 'read_file', 'read\nfile', 'echo'].map(tool) } });
    default:
      return send({ id, result: { tools: TOOLS.map(tool) } });
  }
}

async function call(id, name, args) {
  switch (name) {
    case 'echo':
      return send({ id, result: text(`echo ${JSON.stringify(args)}`) });
    case 'byte_by_byte':
      return trickle(Buffer.from(frame({ id, result: text(`slowly ${'é'.repeat(args.size ?? 100)}`) })), 1);
    case 'foreign_ids':
      // Answers to requests never made, of every type an id can have, before the true one.
      for (const other of [id + 1000, `${id}`, null, { id }, [id], -1, id + 0.5, true]) {
        send({ id: other, result: text('forged') });
      }
      send({ id: String(id), error: { code: 1, message: 'forged' } });
      return send({ id, result: text('the true answer') });
    case 'twice':
      send({ id, result: text('first') });
      return send({ id, result: text('second') });
    case 'proto':
      // Keys JSON.parse makes own properties, and a consumer that assigns them changes a prototype.
      return out.write(
        `{"jsonrpc":"2.0","id":${id},"result":{"__proto__":{"isError":true,"polluted":1},"constructor":{"prototype":{"polluted":2}},"content":[{"type":"text","text":"proto","__proto__":{"type":"image"}}]}}\n`,
      );
    case 'non_utf8':
      return out.write(
        Buffer.concat([
          Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"bad `),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from(' bytes"}]}}\n'),
        ]),
      );
    case 'ping_flood':
      // Requests of its own, never reading the answers, then the answer.
      for (let index = 0; index < (args.count ?? 100_000); index += 1) {
        if (!out.write(frame({ id: `p${index}`, method: 'ping' }))) await new Promise((resolve) => out.once('drain', resolve));
      }
      return send({ id, result: text('after the flood') });
    case 'exit_mid_answer':
      out.write(frame({ id, result: text('never finished') }).slice(0, 30), () => process.exit(3));
      return;
    case 'close_stdout':
      out.end();
      return;
    case 'deep': {
      // A million levels in a notification, in an error's data, in a result: each a message of 2 MB.
      const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
      out.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${deep}}}\n`);
      out.write(`{"jsonrpc":"2.0","id":${id + 1000},"error":{"code":1,"message":"x","data":${deep}}}\n`);
      if (args.in === 'error') return out.write(`{"jsonrpc":"2.0","id":${id},"error":{"code":1,"message":"deep error","data":${deep}}}\n`);
      return out.write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[],"structuredContent":${deep}}}\n`);
    }
    case 'content_not_list':
      return send({ id, result: { content: { type: 'text', text: 'not a list' } } });
    case 'text_not_string':
      return send({
        id,
        result: {
          content: [
            { type: 'text', text: { toString: 'x' } },
            { type: 'text', text: 42 },
            { type: 'image', data: 7 },
            { type: 'resource', resource: 'x' },
            { type: 'resource', resource: null },
          ],
        },
      });
    case 'many_items':
      return send({ id, result: { content: Array.from({ length: args.count ?? 1_000_000 }, () => ({ type: 'text', text: '' })) } });
    case 'long_line': {
      // A line of `mib` MiB, in pieces, then (unless `end` is false) its newline and the true answer.
      const piece = Buffer.alloc(1024 * 1024, 'x');
      for (let index = 0; index < (args.mib ?? 100); index += 1) {
        if (!out.write(piece)) await new Promise((resolve) => out.once('drain', resolve));
      }
      if (args.end === false) return;
      out.write('\n');
      return send({ id, result: text('after the long line') });
    }
    case 'answers_read':
      return send({ id, result: text(`${answersRead} answers read`) });
    case 'stderr_flood': {
      const chunk = Buffer.alloc(1024 * 1024, 'e');
      for (let index = 0; index < (args.mib ?? 100); index += 1) {
        if (!process.stderr.write(chunk)) await new Promise((resolve) => process.stderr.once('drain', resolve));
      }
      return send({ id, result: text('after the stderr flood') });
    }
    default:
      return send({ id, result: text(`called ${JSON.stringify(name)}`) });
  }
}

// Nothing on stdin is processed while a call answers: a flood must not read the client's answers.
let answersRead = 0;
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (process.env.HOSTILE_LOG) appendFileSync(process.env.HOSTILE_LOG, `${line}\n`);
  const message = JSON.parse(line);
  if (message.method === undefined && typeof message.id === 'string') answersRead += 1;
  else if (message.method === 'initialize') {
    send({
      id: message.id,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } },
    });
  } else if (message.method === 'tools/list') {
    listing(message.id, message.params?.cursor);
  } else if (message.method === 'tools/call') {
    await call(message.id, message.params.name, message.params.arguments ?? {});
  }
}
