// MCP servers in a real run: @modelcontextprotocol/server-filesystem from npm, and a server of our own that
// can be killed in the middle of a call. The model is the testkit's; the servers are real processes.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';
import { FILESYSTEM_SERVER, HANG_SERVER, results } from './mcp-servers.test-support.js';

afterEach(cleanupTestResources);

describe('mcp_servers', () => {
  it("offers a real server's tools with its schemas, and the model's two calls observe its real answers", async () => {
    const workDir = await createTempDir('mcp-run-');
    writeFileSync(join(workDir, 'notes.txt'), 'the answer is 42\n');
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'mcp__files__list_directory', arguments: { path: workDir } }] },
        { tool_calls: [{ name: 'mcp__files__read_text_file', arguments: { path: join(workDir, 'notes.txt') } }] },
        { content: 'The notes say 42.' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-files',
        llm: { model: 'm', max_retries: 0 },
        mcp_servers: [
          { name: 'files', command: process.execPath, args: [FILESYSTEM_SERVER, '${CWD}'], tools: ['list_directory', 'read_text_file'] },
        ],
      },
    });
    const result = await startRun({
      agent: loadAgent(home),
      message: 'what do the notes say?',
      workDir,
      apiKey: 'sk-test',
      baseUrl: server.baseUrl,
    });
    expect(result.status).toBe('COMPLETED');

    const events = readJournal(result.paths.journal);
    const [listed, read] = results(events);
    expect(listed).toMatchObject({
      tool_name: 'mcp__files__list_directory',
      status: 'SUCCESS',
      observation_content: '[DIR] .delta\n[FILE] notes.txt',
    });
    expect(read).toMatchObject({ tool_name: 'mcp__files__read_text_file', status: 'SUCCESS', observation_content: 'the answer is 42\n' });
    expect(events.find((event) => event.type === 'ACTION_REQUEST')).toMatchObject({
      tool_name: 'mcp__files__list_directory',
      tool_args: { path: workDir },
      resolved_command: 'mcp files list_directory',
    });
    expect(
      events.some(
        (event) =>
          event.type === 'SYSTEM_MESSAGE' &&
          event.content === 'MCP server files started: mcp__files__read_text_file, mcp__files__list_directory',
      ),
    ).toBe(true);

    // Offered with the server's own schema (read_text_file has head and tail besides path).
    const offered = server.requests[0]!.body.tools as Array<{ function: { name: string; parameters: Record<string, unknown> } }>;
    expect(offered.map((tool) => tool.function.name)).toEqual(['mcp__files__read_text_file', 'mcp__files__list_directory', 'ask_human']);
    expect(offered[0]!.function.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' }, head: {}, tail: {} },
      required: ['path'],
    });
    // The model was sent the server's answers.
    const lastMessages = server.requests[2]!.body.messages as Array<{ role: string; content: string }>;
    expect(lastMessages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      '[DIR] .delta\n[FILE] notes.txt',
      'the answer is 42\n',
    ]);

    // io/tool_executions/<id>/: what was sent, what came back, what the model was given.
    const record = join(result.paths.toolExecutionsDir, read?.type === 'ACTION_RESULT' ? read.execution_ref! : '');
    expect(JSON.parse(readFileSync(join(record, 'request.json'), 'utf8'))).toEqual({
      server: 'files',
      tool: 'read_text_file',
      arguments: { path: join(workDir, 'notes.txt') },
    });
    expect(JSON.parse(readFileSync(join(record, 'response.json'), 'utf8'))).toMatchObject({
      content: [{ type: 'text', text: 'the answer is 42\n' }],
    });
    expect(readFileSync(join(record, 'observation.txt'), 'utf8')).toBe('the answer is 42\n');
    expect(readFileSync(join(record, 'command.txt'), 'utf8')).toBe('mcp files read_text_file\n');
    // The server's stderr is in the run directory.
    expect(readFileSync(join(result.paths.runDir, 'mcp', 'files.stderr.log'), 'utf8')).toContain('Secure MCP Filesystem Server');
  });

  it("names the MCP tools to a model that calls an unknown tool, and checks arguments against the server's input schema", async () => {
    const workDir = await createTempDir('mcp-args-');
    writeFileSync(join(workDir, 'notes.txt'), 'one\ntwo\nthree\n');
    const notes = join(workDir, 'notes.txt');
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'read_file', arguments: { path: notes } }] },
        { tool_calls: [{ name: 'mcp__files__read_text_file', arguments: { path: notes, head: '1' } }] },
        { tool_calls: [{ name: 'mcp__files__read_text_file', arguments: {} }] },
        { tool_calls: [{ name: 'mcp__files__read_text_file', arguments: { path: notes, head: 1 } }] },
        { content: 'one' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-only',
        llm: { model: 'm', max_retries: 0 },
        ask_human: false,
        mcp_servers: [{ name: 'files', command: process.execPath, args: [FILESYSTEM_SERVER, '${CWD}'], tools: ['read_text_file'] }],
      },
    });
    const result = await startRun({ agent: loadAgent(home), message: 'first line?', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
    expect(result.status).toBe('COMPLETED');
    const [unknown, wrongType, missing, fine] = results(readJournal(result.paths.journal));
    expect(unknown!.observation_content).toBe(
      'Error: there is no tool named "read_file". The available tools are: mcp__files__read_text_file.',
    );
    expect(wrongType!.observation_content).toMatch(
      /^Error: Invalid arguments for tool 'mcp__files__read_text_file': Argument 'head' must be a number, found the string "1"\. Known arguments: path \(string, required\), .*head \(number, optional\)/,
    );
    expect(missing!.observation_content).toMatch(
      /^Error: Invalid arguments for tool 'mcp__files__read_text_file': Missing required argument 'path'\./,
    );
    expect(fine).toMatchObject({ status: 'SUCCESS', observation_content: 'one' });
    // The refused calls never reached the server: only the last one has a record of what was sent.
    const sent = readdirSync(result.paths.toolExecutionsDir).filter((ref) =>
      existsSync(join(result.paths.toolExecutionsDir, ref, 'request.json')),
    );
    expect(sent).toHaveLength(1);
  });

  it('gives the model key only to a server that opts in, and records the servers without their env values', async () => {
    const workDir = await createTempDir('mcp-run-');
    const server = await startFakeLlm({
      script: [
        {
          tool_calls: [
            { name: 'mcp__plain__env', arguments: { name: 'DELTA_API_KEY' } },
            { name: 'mcp__trusted__env', arguments: { name: 'DELTA_API_KEY' } },
            { name: 'mcp__plain__env', arguments: { name: 'REGION' } },
          ],
        },
        { content: 'done' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-credentials',
        llm: { model: 'm', max_retries: 0 },
        mcp_servers: [
          { name: 'plain', command: process.execPath, args: [HANG_SERVER], env: { REGION: 'eu-west' } },
          { name: 'trusted', command: process.execPath, args: [HANG_SERVER], pass_model_credentials: true },
        ],
      },
    });
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test-key-123', baseUrl: server.baseUrl });
    expect(result.status).toBe('COMPLETED');
    const events = readJournal(result.paths.journal);
    expect(results(events).map((event) => (event.type === 'ACTION_RESULT' ? event.observation_content : ''))).toEqual([
      'DELTA_API_KEY=(unset)',
      // The journal never holds the key: the engine redacts it from every event.
      expect.not.stringContaining('sk-test-key-123'),
      'REGION=eu-west',
    ]);
    // The server got it: its answer was the key, redacted on its way into the journal.
    expect(results(events)[1]).toMatchObject({ observation_content: expect.stringMatching(/^DELTA_API_KEY=(?!\(unset\))/) });
    const start = events.find((event) => event.type === 'ENGINE_START') as unknown as { config: { mcp_servers: unknown[] } };
    expect(start.config.mcp_servers).toEqual([
      { name: 'plain', command: process.execPath, args: [HANG_SERVER], env: { REGION: '(not recorded)' } },
      { name: 'trusted', command: process.execPath, args: [HANG_SERVER], pass_model_credentials: true },
    ]);
  });
});
