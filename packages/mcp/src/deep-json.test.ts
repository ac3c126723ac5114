// A real server (test/deep-schema-server.mjs) that sends JSON nested 100000 levels deep: in a tool's input
// schema, in its output schema, and in a call's answer. Each used to overflow the engine's stack (a bare
// RangeError); each is now a warning or an observation that names the server, the tool and the limit.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { startMcpServers, type McpServers } from './index.js';

const DEEP_SERVER = join(import.meta.dirname, '../test/deep-schema-server.mjs');

let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  await cleanupTempDirs();
});

async function startDeepServer(log: (line: string) => void): Promise<McpServers> {
  const workDir = await createTempDir('mcp-deep-');
  return startMcpServers({
    servers: [{ config: { name: 'deep', command: process.execPath, args: [DEEP_SERVER] }, file: 'agent.yaml', field: 'mcp_servers[0]' }],
    agentHome: workDir,
    workDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    logDir: workDir,
    log,
  });
}

describe('JSON nested deeper than the engine reads, from a real server', () => {
  it('leaves out a tool whose input or output schema nests 100000 levels deep, with a warning, and offers the rest', async () => {
    const warnings: string[] = [];
    servers = await startDeepServer((line) => warnings.push(line));
    expect(warnings).toEqual([
      'MCP server deep: tool deep is not offered, its inputSchema nests more than 256 levels deep (the most the engine reads)',
      'MCP server deep: tool deep_out is not offered, its outputSchema nests more than 256 levels deep (the most the engine reads)',
    ]);
    expect(servers.tools.map((tool) => tool.name)).toEqual(['mcp__deep__deep_answer', 'mcp__deep__echo']);
    // The JSON of every offered tool can be written out, as every request to the model writes it.
    expect(() => JSON.stringify(servers!.tools)).not.toThrow();
    expect(await servers.call('mcp__deep__echo', { text: 'still here' })).toMatchObject({ status: 'SUCCESS', text: 'echo: still here' });
  });

  it('turns an answer nested 100000 levels deep into an error observation, and the server goes on answering', async () => {
    servers = await startDeepServer(() => undefined);
    const answer = await servers.call('mcp__deep__deep_answer', {});
    const text =
      'Error: the MCP server deep answered deep_answer with JSON nested more than 256 levels deep, more than the engine reads; the answer was discarded';
    expect(answer).toEqual({
      status: 'ERROR',
      text,
      request: { server: 'deep', tool: 'deep_answer', arguments: {} },
      response: { error: text.slice('Error: '.length) },
      interrupted: false,
    });
    expect(() => JSON.stringify(answer)).not.toThrow();
    expect(await servers.call('mcp__deep__echo', { text: 'after' })).toMatchObject({ status: 'SUCCESS', text: 'echo: after' });
  });
});
