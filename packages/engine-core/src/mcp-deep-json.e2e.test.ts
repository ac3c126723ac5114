// A real run with a real MCP server (packages/mcp/test/deep-schema-server.mjs) that sends JSON nested
// 100000 levels deep: two tools' schemas, and one call's answer. The run used to end FAILED with a bare
// "Maximum call stack size exceeded"; now the two tools are left out with a warning in the journal, the
// answer becomes an error observation, and the run completes with the server's other tools.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { listMcpTools, loadAgent, startRun } from './index.js';

const DEEP_SERVER = join(import.meta.dirname, '../../mcp/test/deep-schema-server.mjs');

afterEach(cleanupTestResources);

describe('an MCP server that sends JSON nested 100000 levels deep', () => {
  it('has its deep tools left out with a warning and its deep answer observed as an error; the run completes', async () => {
    const workDir = await createTempDir('mcp-deep-');
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'mcp__deep__deep_answer', arguments: {} }] },
        { tool_calls: [{ name: 'mcp__deep__echo', arguments: { text: 'hello' } }] },
        { content: 'done' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-deep',
        llm: { model: 'm', max_retries: 0 },
        mcp_servers: [{ name: 'deep', command: process.execPath, args: [DEEP_SERVER] }],
      },
    });
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
    expect(result.status).toBe('COMPLETED');

    const events = readJournal(result.paths.journal);
    const messages = events.flatMap((event) => (event.type === 'SYSTEM_MESSAGE' ? [[event.level, event.content]] : []));
    expect(messages).toEqual([
      ['WARN', 'MCP server deep: tool deep is not offered, its inputSchema nests more than 256 levels deep (the most the engine reads)'],
      [
        'WARN',
        'MCP server deep: tool deep_out is not offered, its outputSchema nests more than 256 levels deep (the most the engine reads)',
      ],
      ['INFO', 'MCP server deep started: mcp__deep__deep_answer, mcp__deep__echo'],
    ]);
    const offered = (server.requests[0]!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(['mcp__deep__deep_answer', 'mcp__deep__echo', 'ask_human']);

    const discarded =
      'Error: the MCP server deep answered deep_answer with JSON nested more than 256 levels deep, more than the engine reads; the answer was discarded';
    const results = events.filter((event) => event.type === 'ACTION_RESULT');
    expect(results.map((event) => [event.tool_name, event.status, event.observation_content])).toEqual([
      ['mcp__deep__deep_answer', 'ERROR', discarded],
      ['mcp__deep__echo', 'SUCCESS', 'echo: hello'],
    ]);
    // The model was told, and what was recorded says so too.
    const told = server.requests[1]!.body.messages as Array<{ role: string; content: string }>;
    expect(told.at(-1)).toMatchObject({ role: 'tool', content: discarded });
    const record = join(result.paths.toolExecutionsDir, results[0]?.type === 'ACTION_RESULT' ? results[0].execution_ref! : '');
    expect(JSON.parse(readFileSync(join(record, 'response.json'), 'utf8'))).toEqual({ error: discarded.slice('Error: '.length) });
  });

  it('listMcpTools starts the servers from the environment it is given: shallow there, every tool is offered', async () => {
    const workDir = await createTempDir('mcp-list-');
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-list',
        llm: { model: 'm' },
        // A server gets of the environment what the agent passes on, as tools do.
        sandbox: { env: { pass: ['DEEP_LEVELS'] } },
        mcp_servers: [{ name: 'deep', command: process.execPath, args: [DEEP_SERVER] }],
      },
    });
    const agent = loadAgent(home);
    const names = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name).sort();
    const warnings: string[] = [];
    expect(names(await listMcpTools(agent, workDir, { onWarning: (line) => warnings.push(line) }))).toEqual([
      'mcp__deep__deep_answer',
      'mcp__deep__echo',
    ]);
    expect(warnings).toHaveLength(2);
    const shallow = { ...process.env, DEEP_LEVELS: '3' };
    expect(names(await listMcpTools(agent, workDir, { environment: shallow }))).toEqual([
      'mcp__deep__deep',
      'mcp__deep__deep_answer',
      'mcp__deep__deep_out',
      'mcp__deep__echo',
    ]);
  });
});
