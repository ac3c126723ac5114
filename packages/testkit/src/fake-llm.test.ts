import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FakeLlm, type FakeLlmOptions, startFakeLlm } from './index.js';
import { parseEventStream, reassembleStream } from './event-stream.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function start(options: FakeLlmOptions): Promise<FakeLlm> {
  llm = await startFakeLlm(options);
  return llm;
}

const hello = { model: 'gpt-test', messages: [{ role: 'user', content: 'Hello' }] };

async function post(body: unknown, init: { path?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${llm!.url}${init.path ?? '/v1/chat/completions'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, text, json };
}

describe('startFakeLlm', () => {
  it('answers with scripted text in the chat.completion shape, on a loopback port', async () => {
    const fake = await start({ script: [{ content: 'Hi there', usage: { prompt_tokens: 7, completion_tokens: 2 } }] });
    expect(fake.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(fake.baseUrl).toBe(`${fake.url}/v1`);
    const { status, json } = await post(hello);
    expect(status).toBe(200);
    expect(json).toMatchObject({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
    expect(json.choices[0].message.tool_calls).toBeUndefined();
    expect(fake.requests).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/chat/completions', body: hello, rawBody: JSON.stringify(hello), status: 200 }),
    ]);
    expect(fake.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('answers with tool calls, default ids, and invalid-JSON arguments verbatim', async () => {
    await start({
      script: [
        { content: 'x' },
        {
          tool_calls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { id: 'mine', name: 'broken', raw_arguments: '{"path": ' },
          ],
        },
      ],
    });
    await post(hello);
    const { json } = await post(hello);
    expect(json.id).toBe('chatcmpl-2');
    expect(json.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_2_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'mine', type: 'function', function: { name: 'broken', arguments: '{"path": ' } },
        ],
      },
    });
    expect(json.usage.completion_tokens).toBeGreaterThan(0);
  });

  it('answers a scripted HTTP error in the OpenAI error shape', async () => {
    await start({
      script: [
        { error: { status: 429, message: 'Rate limit reached', code: 'rate_limit_exceeded', should_retry: false } },
        { error: { status: 503 } },
      ],
    });
    const limited = await post(hello);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-should-retry')).toBe('false');
    expect(limited.json).toEqual({
      error: { message: 'Rate limit reached', type: 'rate_limit_exceeded', param: null, code: 'rate_limit_exceeded' },
    });
    const unavailable = await post(hello);
    expect(unavailable.status).toBe(503);
    expect(unavailable.json.error).toMatchObject({ type: 'server_error', message: 'delta-fake-llm: scripted error 503 for request 2' });
    expect(llm!.requests.map((request) => request.status)).toEqual([429, 503]);
  });

  it('waits delay_ms before answering', async () => {
    await start({ script: [{ content: 'slow', delay_ms: 300 }] });
    const started = performance.now();
    const { json } = await post(hello);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(json.choices[0].message.content).toBe('slow');
  });

  it('streams chunks that reassemble to the same message, with a usage chunk when asked', async () => {
    const step = {
      content: 'Let me read both files for you.',
      tool_calls: [
        { name: 'read_file', arguments: { path: 'a.txt', note: 'a fairly long argument value' } },
        { name: 'list', raw_arguments: '{oops' },
      ],
    };
    await start({ script: [step, step] });
    const plain = (await post(hello)).json.choices[0];
    const streamed = await post({ ...hello, stream: true, stream_options: { include_usage: true } });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const { events, done } = parseEventStream(streamed.text);
    expect(done).toBe(true);
    expect(events.length).toBeGreaterThan(8);
    expect(events.every((event) => event.object === 'chat.completion.chunk' && event.id === 'chatcmpl-2')).toBe(true);
    expect(events.slice(0, -1).every((event) => event.usage === null && event.choices.length === 1)).toBe(true);
    expect(events.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
    expect(events.at(-2).choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' });
    const message = reassembleStream(events);
    // The same step answered request 2, so only the default ids differ: call_2_* instead of call_1_*.
    const renumbered = plain.message.tool_calls.map((call: { id: string }) => ({ ...call, id: call.id.replace('call_1_', 'call_2_') }));
    expect(message).toMatchObject({
      role: 'assistant',
      content: plain.message.content,
      tool_calls: renumbered,
      finish_reason: 'tool_calls',
    });
    expect(message.tool_calls[1]!.function.arguments).toBe('{oops');
  });

  it('streams without a usage chunk unless stream_options.include_usage is set', async () => {
    await start({ script: [{ content: 'Hi' }] });
    const { events } = parseEventStream((await post({ ...hello, stream: true })).text);
    expect(events.every((event) => !('usage' in event) && event.choices.length === 1)).toBe(true);
    expect(reassembleStream(events)).toMatchObject({ content: 'Hi', finish_reason: 'stop', tool_calls: [] });
  });

  it('answers 400 to a missing tool result and to an orphan tool message, without using a step', async () => {
    await start({ script: [{ content: 'fine' }] });
    const missing = await post({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'user', content: 'and?' },
      ],
    });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ type: 'invalid_request_error', param: 'messages[1]', code: null });
    expect(missing.json.error.message).toMatch(/did not have response messages: c1/);
    const orphan = await post({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'c9', content: 'x' },
      ],
    });
    expect(orphan.status).toBe(400);
    expect(orphan.json.error.message).toMatch(/must be a response to a preceding message with 'tool_calls'/);
    const unparsable = await post('{"model":');
    expect(unparsable.status).toBe(400);
    expect(unparsable.json.error.message).toMatch(/could not parse the JSON body/);
    expect(llm!.stepsUsed).toBe(0);
    expect((await post(hello)).json.choices[0].message.content).toBe('fine');
    expect(llm!.requests.map((request) => request.status)).toEqual([400, 400, 400, 200]);
  });

  it('answers 401 like the real API when apiKey is set and the request lacks it', async () => {
    await start({ script: [{ content: 'ok' }], apiKey: 'sk-test' });
    const none = await post(hello);
    expect(none.status).toBe(401);
    expect(none.json.error.message).toMatch(/You didn't provide an API key/);
    const wrong = await post(hello, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('invalid_api_key');
    expect((await post(hello, { headers: { authorization: 'Bearer sk-test' } })).status).toBe(200);
  });

  it('answers 500 with a clear message when the script runs out, telling the SDK not to retry', async () => {
    await start({ script: [{ content: 'one' }, { content: 'two' }, { content: 'three' }] });
    for (let index = 0; index < 3; index += 1) await post(hello);
    const exhausted = await post(hello);
    expect(exhausted.status).toBe(500);
    expect(exhausted.headers.get('x-should-retry')).toBe('false');
    expect(exhausted.json.error.message).toBe('delta-fake-llm: the script has no step for request 4 (it has 3 steps)');
  });

  it('asks a function script for each step, passing the recorded request and its index', async () => {
    await start({
      script: (request, index) =>
        index === 0 ? { content: `you said ${request.body.messages.at(-1).content}` } : ({ contnet: 'typo' } as never),
    });
    expect((await post(hello)).json.choices[0].message.content).toBe('you said Hello');
    const invalid = await post(hello);
    expect(invalid.status).toBe(500);
    expect(invalid.json.error.message).toMatch(/the script function returned an invalid step for request 2/);
  });

  it('rejects an invalid array script at start', async () => {
    await expect(startFakeLlm({ script: [{ content: 'ok' }, { delay_ms: 1 } as never] })).rejects.toThrow(
      'the script given to startFakeLlm: step 1: a step needs content, tool_calls, error, raw or large',
    );
  });

  it('serves the route without /v1, lists models, and answers 404 to anything else', async () => {
    await start({ script: [{ content: 'ok' }], model: 'fake-x' });
    expect((await post(hello, { path: '/chat/completions' })).status).toBe(200);
    const models = await (await fetch(`${llm!.baseUrl}/models`)).json();
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'fake-x', object: 'model' }] });
    const unknown = await post(hello, { path: '/v1/completions' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toBe('Invalid URL (POST /v1/completions)');
    expect(llm!.requests.map((request) => `${request.method} ${request.path} ${request.status}`)).toEqual([
      'POST /chat/completions 200',
      'GET /v1/models 200',
      'POST /v1/completions 404',
    ]);
  });

  it('closes promptly while a delayed answer is pending', async () => {
    const fake = await start({ script: [{ content: 'never', delay_ms: 30_000 }] });
    const pending = post(hello).catch((error: unknown) => error);
    // Closed while the answer is pending: once the server has the request, not after a guessed delay.
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1), { timeout: 10_000, interval: 5 });
    const started = performance.now();
    await fake.close();
    llm = undefined;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
  });
});
