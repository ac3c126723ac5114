import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';
import { ExitCode } from './exit-codes.js';

// What real servers send that the official API does not, through a real HTTP server: each answer is
// normalised before it reaches the journal, and one the engine cannot act on is retried, never COMPLETED.

afterEach(cleanupTestResources);

const agentYaml = {
  name: 'answers',
  llm: { model: 'm', max_retries: 2 },
  tools: [{ name: 'echo', description: 'Echo', exec: 'echo ${text}' }],
};

async function run(script: ScriptStep[], llm: Record<string, unknown> = {}) {
  const server = await startFakeLlm({ script });
  const agent = loadAgent(await createTempAgent({ agentYaml: { ...agentYaml, llm: { ...agentYaml.llm, ...llm } } }));
  const workDir = join(await createTempDir('answers-'), 'w');
  const result = await startRun({ agent, message: 'go', workDir, apiKey: 'k', baseUrl: server.baseUrl });
  const journal = readJournal(result.paths.journal);
  return { result, journal, server };
}

const thoughts = (journal: any[]) => journal.filter((event) => event.type === 'THOUGHT');

describe('answers as real servers send them', () => {
  it('gives calls without an id, with an empty id or a repeated id unique ids, used in everything sent back', async () => {
    const { result, journal, server } = await run([
      {
        tool_calls: [
          { omit_id: true, name: 'echo', arguments: { text: 'one' } },
          { id: '', name: 'echo', arguments: { text: 'two' } },
          { id: 'same', name: 'echo', arguments: { text: 'three' } },
          { id: 'same', name: 'echo', arguments: { text: 'four' } },
        ],
      },
      { content: 'done' },
    ]);
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'done' });
    const calls = thoughts(journal)[0].tool_calls;
    const ids = calls.map((call: { id: string }) => call.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids[2]).toBe('same');
    expect(calls.map((call: { server_id?: string | null }) => call.server_id)).toEqual([null, '', undefined, 'same']);
    // The second request carries the assistant's calls with those ids, each answered by its own result.
    const messages = server.requests[1]!.body.messages;
    const assistant = messages.find((message: { role: string }) => message.role === 'assistant');
    expect(assistant.tool_calls.map((call: { id: string }) => call.id)).toEqual(ids);
    const results = messages.filter((message: { role: string }) => message.role === 'tool');
    expect(results.map((message: { tool_call_id: string }) => message.tool_call_id)).toEqual(ids);
    expect(results.map((message: { content: string }) => message.content.trim())).toEqual(['one', 'two', 'three', 'four']);
  });

  it('takes arguments sent as a JSON object, sends them back as JSON text and keeps the original in io/invocations', async () => {
    const { result, journal, server } = await run([
      { tool_calls: [{ id: 'c1', name: 'echo', arguments: { text: 'object' }, arguments_as_object: true }] },
      { content: 'done' },
    ]);
    expect(result.status).toBe('COMPLETED');
    expect(thoughts(journal)[0].tool_calls[0]).toMatchObject({ id: 'c1', arguments: '{"text":"object"}', arguments_type: 'object' });
    const recorded = JSON.parse(
      readFileSync(join(result.paths.invocationsDir, thoughts(journal)[0].llm_invocation_ref, 'response.json'), 'utf8'),
    );
    expect(recorded.choices[0].message.tool_calls[0].function.arguments).toEqual({ text: 'object' });
    const assistant = server.requests[1]!.body.messages.find((message: { role: string }) => message.role === 'assistant');
    expect(assistant.tool_calls[0].function.arguments).toBe('{"text":"object"}');
    const tool = server.requests[1]!.body.messages.find((message: { role: string }) => message.role === 'tool');
    expect(tool.content.trim()).toBe('object');
  });

  it('turns a call without a function or a name into an observation the model can act on', async () => {
    const { result, journal, server } = await run([
      {
        tool_calls: [
          { id: 'nofn', name: 'echo', no_function: true },
          { id: 'noname', name: null },
        ],
      },
      { content: 'corrected' },
    ]);
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'corrected' });
    const results = journal.filter((event) => event.type === 'ACTION_RESULT');
    expect(results.map((event) => event.action_id)).toEqual(['nofn', 'noname']);
    const tools = server.requests[1]!.body.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(tools[0].content).toContain('has no function');
    expect(tools[1].content).toContain('has no function name');
    expect(tools[0].content).toContain('Call one of your tools by its name');
  });

  it('joins content given as parts into the answer', async () => {
    const parts = [
      { type: 'text', text: 'Hello, ' },
      { type: 'text', text: 'world' },
    ];
    const { result, journal } = await run([
      {
        raw: {
          status: 200,
          content_type: 'application/json',
          json: {
            id: 'x',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: parts }, finish_reason: 'stop' }],
          },
        },
      },
    ]);
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'Hello, world' });
    expect(thoughts(journal)[0].content).toBe('Hello, world');
  });

  it('fails, naming the field, when tool_calls is an object rather than a list', async () => {
    const answer = {
      id: 'x',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: { id: 'a', type: 'function', function: { name: 'echo', arguments: '{}' } },
          },
          finish_reason: 'tool_calls',
        },
      ],
    };
    const raw = { raw: { status: 200, content_type: 'application/json', json: answer } };
    const { result, journal } = await run([raw, raw, raw]);
    expect(result).toMatchObject({ status: 'FAILED', exitCode: ExitCode.FAILED });
    expect(result.reason).toMatch(/"tool_calls" is an object, not a list/);
    expect(result.reason).toContain('/chat/completions');
    expect(result.reason).not.toMatch(/flatMap|\n\s+at /);
    expect(thoughts(journal)).toHaveLength(0);
    expect(journal.find((event) => event.type === 'ERROR')).toMatchObject({ error_code: 'MODEL_MALFORMED_RESPONSE' });
  });

  it('retries an answer with no choices, then goes on', async () => {
    const { result, server } = await run([
      { raw: { status: 200, content_type: 'application/json', json: { id: 'x', object: 'chat.completion', choices: [] } } },
      { content: 'second try' },
    ]);
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'second try' });
    expect(server.requests).toHaveLength(2);
  });

  it('fails, never completes, when every attempt answers no choice, no message or no chat completion', async () => {
    const { result, journal, server } = await run([
      { raw: { status: 200, content_type: 'application/json', json: { id: 'x', object: 'chat.completion', choices: [] } } },
      {
        raw: {
          status: 200,
          content_type: 'application/json',
          json: { id: 'x', object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop' }] },
        },
      },
      { raw: { status: 200, content_type: 'application/json', json: {} } },
    ]);
    expect(result.status).toBe('FAILED');
    expect(result.exitCode).toBe(ExitCode.FAILED);
    expect(server.requests).toHaveLength(3);
    expect(thoughts(journal)).toHaveLength(0);
    expect(result.reason).toContain('not a chat completion');
    expect(result.reason).toContain('/chat/completions');
    expect(readJournal(result.paths.journal).find((event) => event.type === 'ERROR')).toMatchObject({ error_code: 'MODEL_BAD_RESPONSE' });
  });

  it('reads a chat completion labelled text/plain, and retries an HTML page in place of one', async () => {
    const completion = {
      id: 'x',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'as text' }, finish_reason: 'stop' }],
    };
    const { result, server } = await run([
      { raw: { status: 200, content_type: 'text/html', body: '<html><body>Gateway says hello</body></html>' } },
      { raw: { status: 200, content_type: 'text/plain', body: JSON.stringify(completion) } },
    ]);
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'as text' });
    expect(server.requests).toHaveLength(2);
  });

  it('names the body that is no chat completion when the retries are spent on it', async () => {
    const { result } = await run([{ raw: { status: 200, content_type: 'text/html', body: '<html>Gateway</html>' } }], { max_retries: 0 });
    expect(result.status).toBe('FAILED');
    expect(result.reason).toContain('not JSON');
    expect(result.reason).toContain('<html>Gateway</html>');
  });

  it('fails with the empty answer named when retries are spent on it', async () => {
    const { result } = await run(
      [{ raw: { status: 200, content_type: 'application/json', json: { id: 'x', object: 'chat.completion', choices: [] } } }],
      { max_retries: 0 },
    );
    expect(result.status).toBe('FAILED');
    expect(result.reason, String(result.reason)).toContain('no choices');
  });
});
