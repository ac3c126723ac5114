// What the client says on the wire to a stdio server written by hand (test/protocol-server.mjs), which logs
// every message it reads: MCP's lifecycle, tools/list page by page, the server's own requests answered, a
// call past timeout_ms cancelled before the server is restarted, and a call the run stops cancelled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { startMcpServers, type McpServers, type StartMcpServersOptions } from './index.js';

const PROTOCOL_SERVER = join(import.meta.dirname, '../test/protocol-server.mjs');

let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  await cleanupTempDirs();
});

async function settings(env: Record<string, string> = {}): Promise<{ options: StartMcpServersOptions; log: string }> {
  const workDir = await createTempDir('mcp-protocol-');
  const log = join(workDir, 'protocol.log');
  return {
    log,
    options: {
      servers: [
        {
          config: { name: 'wire', command: process.execPath, args: [PROTOCOL_SERVER], timeout_ms: 3000 },
          file: 'agent.yaml',
          field: 'mcp_servers[0]',
        },
      ],
      agentHome: workDir,
      workDir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PROTOCOL_LOG: log, ...env },
      logDir: workDir,
    },
  };
}

function logged(log: string): unknown[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

describe('the MCP client on the wire (stdio)', () => {
  it('initializes, lists tools page by page answering the server on the way, calls, and cancels a call past timeout_ms', async () => {
    const { options, log } = await settings();
    servers = await startMcpServers(options);
    expect(servers.tools.map((tool) => tool.name)).toEqual(['mcp__wire__first', 'mcp__wire__second', 'mcp__wire__slow']);
    expect(await servers.call('mcp__wire__second', { x: 1 })).toMatchObject({ status: 'SUCCESS', text: 'called second' });
    const slow = await servers.call('mcp__wire__slow', {});
    expect(slow.text).toBe(
      'Error: the MCP server wire did not answer within 3000 ms (timeout_ms). It was restarted: call the tool again if you still need it.',
    );
    await servers.close();
    servers = undefined;

    const listRound = (id: number, params: Record<string, unknown>) => [
      { jsonrpc: '2.0', id, method: 'tools/list', params },
      { jsonrpc: '2.0', id: 'roots-1', error: { code: -32601, message: 'the client does not offer roots/list' } },
      { jsonrpc: '2.0', id: 'ping-1', result: {} },
    ];
    const start = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'delta-engine', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      ...listRound(2, {}),
      ...listRound(3, { cursor: 'page-2' }),
    ];
    expect(logged(log)).toEqual([
      ...start,
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'second', arguments: { x: 1 } } },
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: {} } },
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 5, reason: 'no answer to tools/call within 3000 ms' },
      },
      // The restarted server: a connection of its own, started as the first was.
      ...start,
    ]);
  });

  it('a call the run stops is interrupted, and the server told with notifications/cancelled', async () => {
    const { options, log } = await settings();
    servers = await startMcpServers(options);
    const stop = new AbortController();
    const call = servers.call('mcp__wire__slow', {}, stop.signal);
    await expect.poll(() => logged(log).some((message) => (message as { method?: string }).method === 'tools/call')).toBe(true);
    stop.abort();
    expect(await call).toEqual({
      status: 'ERROR',
      text: '[the tool was interrupted: the run was stopped]',
      request: { server: 'wire', tool: 'slow', arguments: {} },
      response: { error: 'tools/call was cancelled: the run was stopped' },
      interrupted: true,
    });
    await servers.close();
    servers = undefined;
    expect(logged(log).slice(-2)).toEqual([
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'slow', arguments: {} } },
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 4, reason: 'tools/call was cancelled: the run was stopped' },
      },
    ]);
  });

  it('refuses a server that answers initialize with a protocol version it does not speak', async () => {
    const { options } = await settings({ PROTOCOL_VERSION: '1999-01-01' });
    await expect(startMcpServers(options)).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      message: expect.stringContaining(
        'could not be started: the server speaks MCP 1999-01-01, which this client does not (it speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)',
      ),
    });
  });
});
