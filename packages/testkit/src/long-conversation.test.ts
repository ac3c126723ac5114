import { afterEach, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from './index.js';
import { validateRequest } from './validate-request.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const tools = [{ type: 'function', function: { name: 'step', description: 'One step', parameters: { type: 'object', properties: {} } } }];
const call = (id: string) => ({ id, type: 'function', function: { name: 'step', arguments: '{}' } });

/** The conversation of an agent after `pairs` tool calls, each answered. */
function conversation(pairs: number, result = (pair: number) => `ok ${pair}`): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [
    { role: 'system', content: 'You are a test agent.' },
    { role: 'user', content: 'Call the tool until told otherwise.' },
  ];
  for (let pair = 1; pair <= pairs; pair++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [call(`call_${pair}`)] });
    messages.push({ role: 'tool', tool_call_id: `call_${pair}`, content: result(pair) });
  }
  return messages;
}

/** A body as the engine sends it: tools first, the conversation last. */
const body = (messages: unknown[], extra: Record<string, unknown> = {}) => ({ model: 'm', tools, messages, ...extra });

async function post(body: string | Buffer) {
  const response = await fetch(`${llm!.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, json: (await response.json()) as any };
}

/** The answer the rules give when checked on the whole body, as validateRequest does. */
function wholeBodyAnswer(text: string) {
  let found;
  try {
    found = validateRequest(JSON.parse(text));
  } catch {
    found = {
      message: 'We could not parse the JSON body of your request. The OpenAI API expects a JSON payload.',
      param: null,
      code: null,
    };
  }
  return found ? { status: 400, json: { error: { ...found, type: 'invalid_request_error' } } } : { status: 200, json: expect.anything() };
}

const promptTokens = (sent: { messages: unknown[]; tools?: unknown[] }) =>
  Math.ceil((JSON.stringify(sent.messages) + JSON.stringify(sent.tools ?? [])).length / 4);

describe('startFakeLlm with a conversation that grows by a few messages a request', () => {
  it('answers each request, counts its whole prompt and records its body exactly as sent', async () => {
    llm = await startFakeLlm({ script: (_request, index) => ({ tool_calls: [{ id: `call_${index + 1}`, name: 'step', arguments: {} }] }) });
    const texts: string[] = [];
    for (let pairs = 0; pairs < 200; pairs++) {
      // Text that JSON escapes, and characters of two to four UTF-8 bytes, in what each request adds.
      const sent = body(conversation(pairs, (pair) => `ok "${pair}"\n\\ é 日本 😀`));
      texts.push(JSON.stringify(sent));
      const { status, json } = await post(texts.at(-1)!);
      expect(status).toBe(200);
      expect(json.usage.prompt_tokens).toBe(promptTokens(sent));
    }
    expect(llm.requests.map((request) => request.rawBody)).toEqual(texts);
    expect(llm.requests.at(-1)!.body).toEqual(JSON.parse(texts.at(-1)!));
  });

  it('gives a body that continues an accepted conversation the same answer as any other body', async () => {
    llm = await startFakeLlm({ script: () => ({ content: 'fine' }) });
    const accepted = conversation(200);
    const unanswered = [
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
    ];
    const continuations: Array<[string, string]> = [
      ['an unanswered call among the new messages', JSON.stringify(body([...accepted, ...unanswered, { role: 'user', content: 'and?' }]))],
      [
        'a tool message answering an id no call made',
        JSON.stringify(body([...accepted, { role: 'tool', tool_call_id: 'call_7', content: 'x' }])),
      ],
      [
        'a second answer to the last call',
        JSON.stringify(body([...accepted, { role: 'tool', tool_call_id: 'call_200', content: 'again' }])),
      ],
      ['a new message with an unknown role', JSON.stringify(body([...accepted, { role: 'robot', content: 'x' }]))],
      ['a new message that is not an object', JSON.stringify(body([...accepted, 5]))],
      ['invalid tools', JSON.stringify(body(accepted, { tools: [] }))],
      ['a trailing comma', JSON.stringify(body(accepted)).replace(/\]\}$/, ',]}')],
      ['a later messages key, which JSON.parse keeps', JSON.stringify(body(accepted)).replace(/\}$/, ',"m\\u0065ssages":[]}')],
      [
        'whitespace and escaped characters',
        JSON.stringify(body([...accepted, { role: 'user', content: 'café' }]), null, 2).replace('é', '\\u00e9'),
      ],
      ['no new messages', JSON.stringify(body(accepted))],
    ];
    for (const [name, text] of continuations) {
      expect((await post(JSON.stringify(body(accepted)))).status, 'the accepted conversation').toBe(200);
      expect(await post(text), name).toEqual(wholeBodyAnswer(text));
      expect(llm.requests.at(-1)!.rawBody).toBe(text);
    }
    expect(validateRequest(JSON.parse(continuations[0]![1]))).toMatchObject({
      param: 'messages[402]',
      message: expect.stringMatching(/: a \(assistant message messages\[402\]\)/),
    });
  });

  it('records a body that is not valid UTF-8 as the same text as any decoder gives', async () => {
    llm = await startFakeLlm({ script: () => ({ content: 'fine' }) });
    const accepted = JSON.stringify(body(conversation(20)));
    const [before, after] = JSON.stringify(body([...conversation(20), { role: 'user', content: '@' }])).split('@');
    const invalid = Buffer.concat([Buffer.from(before!), Buffer.from([0xe2, 0x82]), Buffer.from(after!)]);
    expect((await post(accepted)).status).toBe(200);
    expect((await post(invalid)).status).toBe(200);
    expect(llm.requests.at(-1)!.rawBody).toBe(invalid.toString('utf8'));
    expect(llm.requests.at(-1)!.body.messages.at(-1).content).toBe('\ufffd');
  });

  it('lets a script read and change request.body, and the reply follows the body as the script left it', async () => {
    llm = await startFakeLlm({
      script: (request) => {
        request.body.model = 'changed';
        return { content: `${request.body.messages.length} messages` };
      },
    });
    const sent = body(conversation(50));
    await post(JSON.stringify(body(conversation(49))));
    const { json } = await post(JSON.stringify(sent));
    expect(json).toMatchObject({
      model: 'changed',
      choices: [{ message: { content: '102 messages' } }],
      usage: { prompt_tokens: promptTokens(sent) },
    });
    expect(llm.requests.at(-1)!.body.model).toBe('changed');
  });
});
