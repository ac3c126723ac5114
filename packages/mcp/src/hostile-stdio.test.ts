// A stdio server that attacks its client (test/hostile-server.mjs): what it sends must become an
// observation or a clear error, never a crash, a hang past timeout_ms, memory or time without bound, or a
// false success; and the connection goes on answering the next call.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { startMcpServers, type McpServers, type StartMcpServersOptions } from './index.js';

const HOSTILE_SERVER = join(import.meta.dirname, '../test/hostile-server.mjs');

let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  await cleanupTempDirs();
});

async function settings(env: Record<string, string> = {}, timeoutMs = 10_000): Promise<StartMcpServersOptions> {
  const workDir = await createTempDir('mcp-hostile-');
  return {
    servers: [
      {
        config: { name: 'evil', command: process.execPath, args: [HOSTILE_SERVER], timeout_ms: timeoutMs },
        file: 'agent.yaml',
        field: 'mcp_servers[0]',
      },
    ],
    agentHome: workDir,
    workDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    logDir: workDir,
  };
}

describe('a hostile MCP stdio server', () => {
  it('flooding the client with requests while reading none of the answers gets few of them, and its call still answers', async () => {
    servers = await startMcpServers(await settings());
    expect(await servers.call('mcp__evil__ping_flood', { count: 100_000 })).toMatchObject({ status: 'SUCCESS', text: 'after the flood' });
    // Answers are not queued without bound for a server that does not read them: most pings went unanswered.
    const read = (await servers.call('mcp__evil__answers_read', {})).text;
    const count = Number(/^(\d+) answers read$/.exec(read)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(20_000);
  });

  it('a tool list of endless pages of 9 MiB each fails the start, saying why (not a stack overflow, nor ten million tools read for minutes)', async () => {
    await expect(startMcpServers(await settings({ HOSTILE_LIST: 'endless-large-pages' }))).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      message: expect.stringContaining(
        'The MCP server evil (agent.yaml mcp_servers[0]) could not be started: its tools take more than 10 MiB (every page of tools/list together), more than the engine reads',
      ),
    });
  });

  it('a tool list that never ends fails the start after 100 pages, rather than offering the part it read', async () => {
    await expect(startMcpServers(await settings({ HOSTILE_LIST: 'endless-small-pages' }))).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      message: expect.stringContaining(
        'could not be started: its answer to tools/list cannot be read: it still gave a nextCursor after 100 pages, and a list that does not end is not read',
      ),
    });
  });

  it('tools whose offered names collide are left out with a warning each, the name going to the tool that has it unchanged', async () => {
    const warnings: string[] = [];
    servers = await startMcpServers({ ...(await settings({ HOSTILE_LIST: 'colliding-names' })), log: (line) => warnings.push(line) });
    expect(servers.tools.map((tool) => tool.name)).toEqual(['mcp__evil__echo', 'mcp__evil__read_file']);
    expect(await servers.call('mcp__evil__read_file', {})).toMatchObject({ status: 'SUCCESS', text: 'called "read_file"' });
    expect(warnings).toEqual([
      `MCP server evil: tool "read.file" is not offered, its name would be mcp__evil__read_file, as tool "read_file"'s is`,
      `MCP server evil: tool "read\\nfile" is not offered, its name would be mcp__evil__read_file, as tool "read_file"'s is`,
      'MCP server evil: tool "echo" is listed more than once; only the first is offered',
    ]);
  });
});
