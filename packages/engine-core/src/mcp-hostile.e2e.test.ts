// Real runs with a hostile MCP server (packages/mcp/test/hostile-server.mjs): a flood of requests of its
// own and tools whose names collide give observations and warnings, and the run completes; a tool list
// that never ends fails the run before the model is asked anything.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

const HOSTILE_SERVER = join(import.meta.dirname, '../../mcp/test/hostile-server.mjs');

afterEach(cleanupTestResources);

async function agent(list: string) {
  return createTempAgent({
    agentYaml: {
      name: 'mcp-hostile',
      llm: { model: 'm', max_retries: 0 },
      mcp_servers: [{ name: 'evil', command: process.execPath, args: [HOSTILE_SERVER], env: { HOSTILE_LIST: list }, timeout_ms: 20_000 }],
    },
  });
}

describe('a run with a hostile MCP server', () => {
  it('a flood of pings and colliding tool names become observations and warnings; the run completes', async () => {
    const workDir = await createTempDir('mcp-hostile-');
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'mcp__evil__ping_flood', arguments: { count: 100_000 } }] },
        { tool_calls: [{ name: 'mcp__evil__read_file', arguments: {} }] },
        { content: 'done' },
      ],
    });
    const home = await agent('colliding-names');
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
    expect(result.status).toBe('COMPLETED');

    const events = readJournal(result.paths.journal);
    const messages = events.flatMap((event) => (event.type === 'SYSTEM_MESSAGE' ? [[event.level, event.content]] : []));
    expect(messages).toEqual([
      ['WARN', `MCP server evil: tool "read.file" is not offered, its name would be mcp__evil__read_file, as tool "read_file"'s is`],
      ['WARN', `MCP server evil: tool "read\\nfile" is not offered, its name would be mcp__evil__read_file, as tool "read_file"'s is`],
      ['WARN', 'MCP server evil: tool "echo" is listed more than once; only the first is offered'],
      ['INFO', 'MCP server evil started: mcp__evil__echo, mcp__evil__ping_flood, mcp__evil__read_file'],
    ]);
    const offered = (server.requests[0]!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(['mcp__evil__echo', 'mcp__evil__ping_flood', 'mcp__evil__read_file', 'ask_human']);
    const results = events.filter((event) => event.type === 'ACTION_RESULT');
    expect(results.map((event) => [event.tool_name, event.status, event.observation_content])).toEqual([
      ['mcp__evil__ping_flood', 'SUCCESS', 'after the flood'],
      ['mcp__evil__read_file', 'SUCCESS', 'called "read_file"'],
    ]);
  });

  it('a tool list of endless pages fails the run, naming the server, before the model is asked anything', async () => {
    const workDir = await createTempDir('mcp-hostile-');
    const server = await startFakeLlm({ script: [{ content: 'never asked' }] });
    const home = await agent('endless-large-pages');
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
    expect(result.status).toBe('FAILED');
    expect(server.requests).toEqual([]);
    expect(result.error).toMatchObject({ code: 'MCP_SERVER_FAILED', field: 'mcp_servers[0]' });
    const error = readJournal(result.paths.journal).find((event) => event.type === 'ERROR');
    expect(error).toMatchObject({
      error_code: 'MCP_SERVER_FAILED',
      error_message: expect.stringContaining(
        'mcp_servers[0]) could not be started: its tools take more than 10 MiB (every page of tools/list together), more than the engine reads',
      ),
    });
  });
});
