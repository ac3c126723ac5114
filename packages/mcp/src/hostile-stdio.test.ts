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
    expect(servers.tools.map((tool) => tool.name)).toEqual(['mcp__evil__echo', 'mcp__evil__ping_flood', 'mcp__evil__read_file']);
    expect(await servers.call('mcp__evil__read_file', {})).toMatchObject({ status: 'SUCCESS', text: 'called "read_file"' });
    expect(warnings).toEqual([
      `MCP server evil: tool "read.file" is not offered, its name would be mcp__evil__read_file, as tool "read_file"'s is`,
      `MCP server evil: tool "read\\nfile" is not offered, its name would be mcp__evil__read_file, as tool "read_file"'s is`,
      'MCP server evil: tool "echo" is listed more than once; only the first is offered',
    ]);
  });

  it('answers of every malformed kind become observations or the true answer, and the connection goes on', async () => {
    servers = await startMcpServers(await settings());
    const call = async (tool: string, args: Record<string, unknown> = {}) => {
      const outcome = await servers!.call(`mcp__evil__${tool}`, args);
      // After each attack the same connection answers honestly.
      expect(await servers!.call('mcp__evil__echo', { after: tool })).toMatchObject({
        status: 'SUCCESS',
        text: `echo {"after":"${tool}"}`,
      });
      return { status: outcome.status, text: outcome.text };
    };
    // Answers with ids never asked (of every type), then the true one; an answer given twice.
    expect(await call('foreign_ids')).toEqual({ status: 'SUCCESS', text: 'the true answer' });
    expect(await call('twice')).toEqual({ status: 'SUCCESS', text: 'first' });
    // A multi-byte character cut between writes of one byte each.
    expect(await call('byte_by_byte', { size: 3 })).toEqual({ status: 'SUCCESS', text: 'slowly ééé' });
    // __proto__ and constructor keys stay data: no isError through a prototype, nothing polluted.
    expect(await call('proto')).toEqual({ status: 'SUCCESS', text: 'proto' });
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(await call('non_utf8')).toEqual({ status: 'SUCCESS', text: 'bad \uFFFD\uFFFD\uFFFD bytes' });
    // A million levels deep in a notification, in an answer to no one, and in the answer.
    const discarded =
      'Error: the MCP server evil answered deep with JSON nested more than 256 levels deep, more than the engine reads; the answer was discarded';
    expect(await call('deep')).toEqual({ status: 'ERROR', text: discarded });
    expect(await call('deep', { in: 'error' })).toEqual({
      status: 'ERROR',
      text: 'Error: the MCP server evil refused the call: deep error (JSON-RPC error 1)',
    });
    expect(await call('content_not_list')).toEqual({
      status: 'ERROR',
      text: 'Error: the MCP server evil refused the call: its answer to tools/call cannot be read: its content is not a list',
    });
    expect((await call('text_not_string')).text.split('\n')[0]).toBe('[content of type "text": see the recorded response]');
    expect(await call('long_line', { mib: 100 })).toEqual({
      status: 'ERROR',
      text: 'Error: the MCP server evil answered with more than the engine reads: the answer was larger than 10 MiB, the most the engine reads; it was discarded. Ask for less at a time',
    });
    expect(await call('exit_mid_answer')).toMatchObject({
      status: 'ERROR',
      text: expect.stringMatching(
        /^Error: the MCP server evil stopped during the call \(exit 3\); its stderr is in .*evil\.stderr\.log\. It was restarted/,
      ),
    });
  });
});
