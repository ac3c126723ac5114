import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from './index.js';

/**
 * The real openai SDK, without making it a dependency of testkit: it is taken from testkit's own
 * node_modules if it is there, otherwise from @delta/engine's, the package that really uses it.
 */
async function loadOpenAi(): Promise<any> {
  for (const base of [import.meta.url, new URL('../../engine-core/package.json', import.meta.url).href]) {
    try {
      const entry = createRequire(base).resolve('openai');
      return (await import(pathToFileURL(join(dirname(entry), 'index.mjs')).href)).default;
    } catch {
      // try the next place
    }
  }
  throw new Error('the openai SDK is not installed: run pnpm install at the repository root');
}

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const tools = [
  {
    type: 'function' as const,
    function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  },
];

describe('the real openai SDK against startFakeLlm', () => {
  it('runs a tool-call round trip, non-streaming and streaming, with the API key it sends', async () => {
    const OpenAI = await loadOpenAi();
    llm = await startFakeLlm({
      apiKey: 'sk-fake',
      script: [
        { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { content: 'The file says hello.', tool_calls: [{ name: 'read_file', raw_arguments: '{"path": "b' }] },
        { content: 'Done.' },
      ],
    });
    const client = new OpenAI({ baseURL: llm.baseUrl, apiKey: 'sk-fake', maxRetries: 0 });

    const first = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Read notes.txt' }],
      tools,
    });
    const call = first.choices[0].message.tool_calls[0];
    expect(call).toEqual({ id: 'call_1_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } });
    expect(first.choices[0].finish_reason).toBe('tool_calls');

    const conversation = [
      { role: 'user', content: 'Read notes.txt' },
      first.choices[0].message,
      { role: 'tool', tool_call_id: call.id, content: 'hello' },
    ];
    const stream = client.chat.completions.stream({
      model: 'gpt-test',
      messages: conversation,
      tools,
      stream_options: { include_usage: true },
    });
    const streamed = await stream.finalChatCompletion();
    expect(streamed.choices[0].message.content).toBe('The file says hello.');
    expect(streamed.choices[0].message.tool_calls[0].function.arguments).toBe('{"path": "b');
    expect(streamed.usage.total_tokens).toBeGreaterThan(0);

    // The SDK sent exactly what we gave it, with the key, to the /v1 route.
    expect(llm.requests[1]!.path).toBe('/v1/chat/completions');
    expect(llm.requests[1]!.headers.authorization).toBe('Bearer sk-fake');
    expect(llm.requests[1]!.body.messages[1].tool_calls[0].id).toBe('call_1_1');
    expect(llm.requests[1]!.body.stream).toBe(true);
  });

  it('surfaces the 400 for an unanswered tool call and the scripted errors as SDK errors', async () => {
    const OpenAI = await loadOpenAi();
    llm = await startFakeLlm({ script: [{ error: { status: 429, message: 'Rate limit reached' } }] });
    const client = new OpenAI({ baseURL: llm.baseUrl, apiKey: 'x', maxRetries: 0 });
    const broken = client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        },
      ],
    });
    await expect(broken).rejects.toMatchObject({ status: 400, type: 'invalid_request_error', param: 'messages[1]' });
    const limited = client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    await expect(limited).rejects.toMatchObject({ status: 429, message: expect.stringContaining('Rate limit reached') });
    await expect(client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining('the script has no step for request 2 (it has 1 steps)'),
    });
  });
});
