import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeltaError } from '@delta/errors';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

afterEach(cleanupTestResources);

function loadError(home: string): DeltaError {
  try {
    loadAgent(home);
  } catch (error) {
    return error as DeltaError;
  }
  throw new Error('loadAgent did not fail');
}

describe('llm: request parameters', () => {
  it('sends the known parameters and extra_body as written, and nothing unknown', async () => {
    const server = await startFakeLlm({ script: [{ content: 'done' }] });
    const home = await createTempAgent({
      agentYaml:
        'name: a\nllm:\n  model: local-model\n  temperature: 0\n  max_tokens: 300\n  max_completion_tokens: 200\n  min_p: 0.05\n' +
        '  max_retries: 0\n  extra_body:\n    top_k: 40\n    chat_template_kwargs: {enable_thinking: false}\n',
    });
    const agent = loadAgent(home);
    expect(agent.warnings.map((warning) => [warning.field, warning.message])).toEqual([
      [
        'llm.min_p',
        '"min_p" is not a Chat Completions parameter the engine knows, so it is not sent; put a parameter only your server knows under llm.extra_body (sent as written)',
      ],
    ]);
    const result = await startRun({ agent, message: 'hi', workDir: await createTempDir('work-'), apiKey: 'k', baseUrl: server.baseUrl });
    expect(result.status).toBe('COMPLETED');
    const body = server.requests[0]!.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['chat_template_kwargs', 'max_completion_tokens', 'max_tokens', 'messages', 'model', 'temperature', 'tools', 'top_k'].sort(),
    );
    expect(Object.keys(body).at(-1)).toBe('messages');
    expect(body).toMatchObject({
      model: 'local-model',
      temperature: 0,
      max_tokens: 300,
      max_completion_tokens: 200,
      top_k: 40,
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(server.requests[0]!.rawBody).toContain('"max_tokens":300,"max_completion_tokens":200,');
    expect(server.requests[0]!.rawBody).toContain('"top_k":40,"chat_template_kwargs":{"enable_thinking":false},');
  });

  it('refuses a key close to a known parameter, naming llm.temprature and suggesting temperature', async () => {
    const home = await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\n  temprature: 0\n' });
    const error = loadError(home);
    expect(error.kind).toBe('configuration');
    expect(error.message).toBe(
      `${join(home, 'agent.yaml')} is not valid:\n  - ${join(home, 'agent.yaml')}:4:3 llm.temprature: unknown key "temprature": did you mean "temperature"?`,
    );
    expect(error.hint).toMatch(
      /^Rename llm\.temprature to llm\.temperature\. A parameter only your server knows goes under llm\.extra_body/,
    );
  });

  it('names a misspelled llm.modle and suggests model, not only that model is missing', async () => {
    const home = await createTempAgent({ agentYaml: 'name: a\nllm:\n  modle: m\n' });
    const error = loadError(home);
    expect(error.kind).toBe('configuration');
    expect(error.message).toContain(`${join(home, 'agent.yaml')}:3:3 llm.modle: unknown key "modle": did you mean "model"?`);
    expect(error.hint).toMatch(/^Rename llm\.modle to llm\.model\./);
  });

  it('refuses what the engine fills in itself, in llm: and in extra_body, and a parameter set twice', async () => {
    const tools = loadError(await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\n  tools: []\n' }));
    expect(tools.message).toContain('llm.tools: "tools" is filled in by the engine and cannot be set in llm:');
    const model = loadError(await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\n  extra_body:\n    model: other\n' }));
    expect(model.message).toContain('llm.extra_body.model: "model" is filled in by the engine, not by extra_body');
    const twice = loadError(await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\n  seed: 1\n  extra_body:\n    seed: 2\n' }));
    expect(twice.message).toContain('llm.extra_body.seed: "seed" is set both in llm: and in llm.extra_body; keep one');
  });

  it('says to rename the v1.1 llm_config: and model_name:', async () => {
    const old = loadError(await createTempAgent({ agentYaml: 'name: a\nllm_config:\n  model_name: gpt-4o\n' }));
    expect(old.message).toContain('llm_config: llm_config is the v1.1 name of llm');
    expect(old.hint).toMatch(/^Rename llm_config: to llm: \(and its model_name: to model:\)/);
    const inner = loadError(await createTempAgent({ agentYaml: 'name: a\nllm:\n  model_name: gpt-4o\n' }));
    expect(inner.message).toContain('llm.model_name: model_name is the v1.1 name of model');
    expect(inner.hint).toContain('Rename llm.model_name to llm.model.');
  });
});

describe('a base URL without a key', () => {
  it('sends no key at all', async () => {
    const server = await startFakeLlm({ script: [{ content: 'done' }] });
    const home = await createTempAgent({ agentYaml: { name: 'a', llm: { model: 'm', max_retries: 0 } } });
    const result = await startRun({
      agent: loadAgent(home),
      message: 'hi',
      workDir: await createTempDir('work-'),
      environment: { DELTA_BASE_URL: server.baseUrl },
    });
    expect(result.status).toBe('COMPLETED');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('says that the endpoint wants a key when it answers 401', async () => {
    const server = await startFakeLlm({ script: [{ content: 'never' }], apiKey: 'sk-needed' });
    const home = await createTempAgent({ agentYaml: { name: 'a', llm: { model: 'm', max_retries: 0 } } });
    const result = await startRun({
      agent: loadAgent(home),
      message: 'hi',
      workDir: await createTempDir('work-'),
      environment: { DELTA_BASE_URL: server.baseUrl },
    });
    expect(result).toMatchObject({ status: 'FAILED', exitCode: 2 });
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    const error = (result as { error?: DeltaError }).error;
    expect(error?.message).toMatch(
      new RegExp(
        `^The model endpoint ${server.baseUrl}/chat/completions wants an API key \\(HTTP 401\\), and none was sent: You didn't provide an API key`,
      ),
    );
    expect(error).toMatchObject({ code: 'MODEL_UNAUTHORIZED', kind: 'configuration', hint: expect.stringMatching(/^Set DELTA_API_KEY/) });
  });
});

describe('the tools of a request', () => {
  it('carry typed parameters as JSON schema; a value of the wrong type comes back as an observation, a right one runs as text', async () => {
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ id: 'call_wrong', name: 'repeat', arguments: { times: '3', word: 'hi' } }] },
        { tool_calls: [{ id: 'call_right', name: 'repeat', arguments: { times: 3, word: 'hi' } }] },
        { content: 'done' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'typed',
        llm: { model: 'm', max_retries: 0 },
        tools: [
          {
            name: 'repeat',
            shell: 'i=0; while [ "$i" -lt ${times} ]; do printf "%s " ${word}; i=$((i + 1)); done',
            parameters: [
              { name: 'times', type: 'integer' },
              { name: 'word', enum: ['hi', 'bye'] },
            ],
          },
        ],
      },
    });
    const workDir = await createTempDir('work-');
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'k', baseUrl: server.baseUrl });
    expect(result.status).toBe('COMPLETED');
    const [tool] = (server.requests[0]!.body as { tools: Array<{ function: { parameters: unknown } }> }).tools;
    expect(tool!.function.parameters).toEqual({
      type: 'object',
      properties: { times: { type: 'integer' }, word: { type: 'string', enum: ['hi', 'bye'] } },
      required: ['times', 'word'],
      additionalProperties: false,
    });
    const results = readJournal(result.paths.journal).filter((event) => event.type === 'ACTION_RESULT');
    expect(results.map((event) => event.type === 'ACTION_RESULT' && event.observation_content)).toEqual([
      'Error: Invalid arguments for tool \'repeat\': Argument \'times\' must be an integer, found the string "3". Known arguments: times (integer, required), word (one of "hi" or "bye"; required).',
      'hi hi hi ',
    ]);
  });

  it('carry ask_human unless agent.yaml says ask_human: false; then a call to it is an unknown tool and the run never waits', async () => {
    const server = await startFakeLlm({
      script: [{ tool_calls: [{ id: 'call_ask', name: 'ask_human', arguments: { prompt: 'Which file?' } }] }, { content: 'went on alone' }],
    });
    const home = await createTempAgent({ agentYaml: { name: 'unattended', llm: { model: 'm', max_retries: 0 }, ask_human: false } });
    const result = await startRun({
      agent: loadAgent(home),
      message: 'go',
      workDir: await createTempDir('work-'),
      apiKey: 'k',
      baseUrl: server.baseUrl,
    });
    expect(result, String((result as { error?: Error }).error?.message)).toMatchObject({ status: 'COMPLETED', exitCode: 0 });
    expect(Object.keys(server.requests[0]!.body as object)).toEqual(['model', 'messages']);
    const events = readJournal(result.paths.journal);
    expect(events.some((event) => event.type === 'HUMAN_INPUT_REQUEST')).toBe(false);
    const observation = events.find((event) => event.type === 'ACTION_RESULT');
    expect(observation?.type === 'ACTION_RESULT' && observation.observation_content).toBe(
      'Error: there is no tool named "ask_human". The available tools are: (none).',
    );

    await server.close();
    const askingServer = await startFakeLlm({ script: [{ content: 'done' }] });
    const asking = await createTempAgent({ agentYaml: { name: 'asking', llm: { model: 'm' } } });
    await startRun({
      agent: loadAgent(asking),
      message: 'go',
      workDir: await createTempDir('work-'),
      apiKey: 'k',
      baseUrl: askingServer.baseUrl,
    });
    const tools = (askingServer.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools;
    expect(tools.map((tool) => tool.function.name)).toEqual(['ask_human']);
  });
});
