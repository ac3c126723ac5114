import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal, readMetadata, type JournalEvent } from '@delta/journal';
import { loadAgent, startRun } from './index.js';
import { ExitCode } from './exit-codes.js';

let server: FakeLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
});

const agentYaml = {
  name: 'loop',
  llm: { model: 'm', max_retries: 0 },
  tools: [
    { name: 'echo', description: 'Echo', exec: 'echo ${text}' },
    { name: 'fail', description: 'Fail', shell: 'echo "bad ${why}" >&2; exit 7' },
  ],
};

async function run(script: ScriptStep[], options: { maxIterations?: number; yaml?: Record<string, unknown>; message?: string } = {}) {
  server = await startFakeLlm({ script });
  const agent = loadAgent(await createTempAgent({ agentYaml: options.yaml ?? agentYaml }));
  const workDir = join(await createTempDir('work-'), 'w');
  const events: JournalEvent[] = [];
  const result = await startRun({
    agent,
    message: options.message ?? 'task',
    workDir,
    apiKey: 'k',
    baseUrl: server.baseUrl,
    ...(options.maxIterations ? { maxIterations: options.maxIterations } : {}),
    onEvent: (event) => events.push(event),
  });
  const journal = readJournal(result.paths.journal);
  return { result, journal, events, metadata: readMetadata(result.paths.metadata), workDir };
}

const lastToolMessages = () =>
  (server!.requests.at(-1)!.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>).filter(
    (message) => message.role === 'tool',
  );

describe('the run loop', () => {
  it('turns an unknown tool into an observation the model can act on', async () => {
    const { result } = await run([{ tool_calls: [{ name: 'nope', arguments: {} }] }, { content: 'ok' }]);
    expect(result.status).toBe('COMPLETED');
    expect(lastToolMessages()[0]!.content).toBe('Error: there is no tool named "nope". The available tools are: echo, fail, ask_human.');
  });

  it('turns arguments that are not JSON, or do not fit, into observations', async () => {
    const { result, journal } = await run([
      {
        tool_calls: [
          { name: 'echo', raw_arguments: '{"text": "unterminated' },
          { name: 'echo', arguments: { wrong: 'x' } },
          { name: 'echo', raw_arguments: '[1,2]' },
        ],
      },
      { content: 'ok' },
    ]);
    expect(result.exitCode).toBe(ExitCode.COMPLETED);
    const [badJson, wrongName, notObject] = lastToolMessages();
    expect(badJson!.content).toMatch(/^Error: the arguments are not valid JSON/);
    expect(wrongName!.content).toMatch(/^Error: .*wrong/);
    expect(notObject!.content).toBe('Error: the arguments must be a JSON object, got: [1,2]');
    const requests = journal.filter((event) => event.type === 'ACTION_REQUEST');
    expect(requests.map((event) => event.type === 'ACTION_REQUEST' && event.tool_args)).toEqual([null, { wrong: 'x' }, null]);
  });

  it('shows a failing tool its stderr and exit code, and keeps going', async () => {
    const { result, journal } = await run([{ tool_calls: [{ name: 'fail', arguments: { why: 'x' } }] }, { content: 'saw it' }]);
    expect(result.finalAnswer).toBe('saw it');
    expect(lastToolMessages()[0]!.content).toBe('[stderr]\nbad x\n[exit code: 7]');
    const actionResult = journal.find((event) => event.type === 'ACTION_RESULT');
    expect(actionResult).toMatchObject({ status: 'FAILED', exit_code: 7 });
  });

  it('stops at the iteration budget as INTERRUPTED with exit 3 and a recorded reason, every call answered', async () => {
    const step = { tool_calls: [{ name: 'echo', arguments: { text: 'again' } }] };
    const { result, journal, metadata } = await run([step, step, step, step], { maxIterations: 2 });
    expect(result.status).toBe('INTERRUPTED');
    expect(result.exitCode).toBe(3);
    expect(server!.requests).toHaveLength(2);
    expect(metadata).toMatchObject({ status: 'INTERRUPTED', iterations: 2, exit_code: 3 });
    expect(metadata.status_reason).toContain('--max-iterations 2');
    expect(journal.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'INTERRUPTED', final_iteration: 2 });
    expect(journal.filter((event) => event.type === 'ACTION_RESULT')).toHaveLength(2);
  });

  it('fails the run on a model error, recording ERROR, ENGINE_END and the failed invocation', async () => {
    const { result, journal, metadata } = await run([{ error: { status: 500, message: 'upstream exploded', should_retry: false } }]);
    expect(result.status).toBe('FAILED');
    expect(result.exitCode).toBe(1);
    expect(metadata.error).toContain('HTTP 500');
    expect(metadata.error).toContain('upstream exploded');
    expect(journal.map((event) => event.type)).toEqual(['ENGINE_START', 'USER_MESSAGE', 'ERROR', 'ENGINE_END']);
    const [invocation] = readdirSync(result.paths.invocationsDir);
    const invocationDir = join(result.paths.invocationsDir, invocation!);
    expect(readFileSync(join(invocationDir, 'request.json'), 'utf8')).toBe(server!.requests[0]!.rawBody);
    expect(JSON.parse(readFileSync(join(invocationDir, 'metadata.json'), 'utf8'))).toMatchObject({ status: 'FAILED' });
    expect(existsSync(join(invocationDir, 'response.json'))).toBe(false);
  });

  it('rebuilds every request from the journal alone: each one is the previous plus what the journal gained', async () => {
    const { result } = await run([
      { content: 'one', tool_calls: [{ name: 'echo', arguments: { text: 'a' } }] },
      {
        content: 'two',
        tool_calls: [
          { name: 'echo', arguments: { text: 'b' } },
          { name: 'echo', arguments: { text: 'c' } },
        ],
      },
      { content: 'done' },
    ]);
    expect(result.status).toBe('COMPLETED');
    const [first, second, third] = server!.requests.map((request) => request.body.messages as unknown[]);
    expect(second!.slice(0, first!.length)).toEqual(first);
    expect(third!.slice(0, second!.length)).toEqual(second);
    expect(third).toHaveLength(second!.length + 3);
    expect(lastToolMessages().map((message) => message.content)).toEqual(['a', 'b', 'c']);
  });

  it('does not give tools the model credentials', async () => {
    const yaml = { ...agentYaml, tools: [{ name: 'env', description: 'Print the environment', exec: 'env' }] };
    server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'env', arguments: {} }] }, { content: 'ok' }] });
    const agent = loadAgent(await createTempAgent({ agentYaml: yaml }));
    const result = await startRun({
      agent,
      message: 'x',
      workDir: join(await createTempDir('w-'), 'w'),
      environment: { PATH: process.env.PATH, DELTA_API_KEY: 'sk-secret-123', OPENAI_API_KEY: 'sk-other', MY_COPY: 'sk-secret-123' },
      baseUrl: server.baseUrl,
    });
    expect(result.status).toBe('COMPLETED');
    const output = lastToolMessages()[0]!.content;
    expect(output).not.toContain('sk-secret-123');
    expect(output).not.toContain('sk-other');
    expect(output).toContain(`DELTA_RUN_ID=${result.runId}`);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-secret-123');
  });

  it('gives the model credentials only to a tool that declares pass_model_credentials', async () => {
    const yaml = {
      ...agentYaml,
      tools: [
        { name: 'plain_env', description: 'Print the environment', exec: 'env' },
        { name: 'sub_agent_env', description: 'Print the environment', exec: 'env', pass_model_credentials: true },
      ],
    };
    server = await startFakeLlm({
      script: [
        {
          tool_calls: [
            { name: 'plain_env', arguments: {} },
            { name: 'sub_agent_env', arguments: {} },
          ],
        },
        { content: 'ok' },
      ],
    });
    const agent = loadAgent(await createTempAgent({ agentYaml: yaml }));
    const result = await startRun({
      agent,
      message: 'x',
      workDir: join(await createTempDir('w-'), 'w'),
      environment: { PATH: process.env.PATH, DELTA_API_KEY: 'sk-secret-456' },
      baseUrl: server.baseUrl,
    });
    expect(result.status).toBe('COMPLETED');
    const [plain, opted] = lastToolMessages();
    expect(plain!.content).not.toContain('sk-secret-456');
    // The tool got the key (its stdout.log, as written, shows it); the model never sees it (redacted).
    expect(opted!.content).toContain('DELTA_API_KEY=[REDACTED]');
    expect(opted!.content).not.toContain('sk-secret-456');
    expect(opted!.content).toContain(`DELTA_BASE_URL=${server.baseUrl}`);
    const executions = result.paths.toolExecutionsDir;
    const logs = readdirSync(executions).map((name) => readFileSync(join(executions, name, 'stdout.log'), 'utf8'));
    expect(logs.filter((log) => log.includes('DELTA_API_KEY=sk-secret-456\n'))).toHaveLength(1);
  });

  it('emits every journal event to onEvent, in order', async () => {
    const { events, journal } = await run([{ content: 'done' }]);
    expect(events).toEqual(journal);
  });
});
