import { describe, expect, it } from 'vitest';
import { validateConversation, validateRequest } from './validate-request.js';

const call = (id: string, name = 'read_file') => ({ id, type: 'function', function: { name, arguments: '{}' } });
const request = (messages: unknown, extra: Record<string, unknown> = {}) => ({ model: 'm', messages, ...extra });

describe('validateConversation', () => {
  it('accepts a conversation where every tool call is answered right after it', () => {
    const body = request([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: [{ type: 'text', text: 'more' }] },
    ]);
    expect(validateConversation(body)).toBeNull();
  });

  it('rejects an assistant tool call with no tool message, naming the missing id', () => {
    const body = request([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'user', content: 'next' },
    ]);
    expect(validateRequest(body)).toMatchObject({ param: 'messages[1]' });
    expect(validateConversation(body)).toMatch(/did not have response messages: b \(assistant message messages\[1\]\)/);
  });

  it('rejects unanswered tool calls at the end of the conversation', () => {
    const body = request([
      { role: 'user', content: 'hi' },
      { role: 'assistant', tool_calls: [call('a')] },
    ]);
    expect(validateConversation(body)).toMatch(/did not have response messages: a/);
  });

  it('rejects a tool message that answers no preceding call, and one separated from its call', () => {
    const orphan = request([
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'x', content: 'X' },
    ]);
    expect(validateRequest(orphan)).toMatchObject({ param: 'messages[1].role' });
    expect(validateConversation(orphan)).toMatch(/must be a response to a preceding message with 'tool_calls'.*'x'/);
    const late = request([
      { role: 'assistant', tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'a', content: 'again' },
    ]);
    expect(validateConversation(late)).toMatch(/must be a response to a preceding message/);
  });

  it('rejects a second answer to the same call', () => {
    const body = request([
      { role: 'assistant', tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
    ]);
    expect(validateConversation(body)).toMatch(/answers tool_call_id 'a' a second time/);
  });

  it('checks the pairing of a long conversation, naming the message that breaks it', () => {
    const pairs = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, offset) => [
        { role: 'assistant', content: null, tool_calls: [call(`c${from + offset}`)] },
        { role: 'tool', tool_call_id: `c${from + offset}`, content: 'ok' },
      ]).flat();
    const user = { role: 'user', content: 'go' };
    expect(validateConversation(request([user, ...pairs(0, 5000)]))).toBeNull();
    const unanswered = request([user, ...pairs(0, 2500), { role: 'assistant', tool_calls: [call('lost')] }, user, ...pairs(2500, 5000)]);
    expect(validateRequest(unanswered)).toMatchObject({
      param: 'messages[5001]',
      message: expect.stringMatching(/: lost \(assistant message messages\[5001\]\)/),
    });
    const unknown = request([user, ...pairs(0, 2500), { role: 'tool', tool_call_id: 'c7', content: 'x' }, ...pairs(2500, 5000)]);
    expect(validateRequest(unknown)).toMatchObject({
      param: 'messages[5001].role',
      message: expect.stringMatching(/messages\[5001\] answers tool_call_id 'c7'/),
    });
  });

  it.each([
    ['a body that is not an object', [1], /must be a JSON object/],
    ['missing model', { messages: [{ role: 'user', content: 'x' }] }, /you must provide a model parameter/],
    ['missing messages', { model: 'm' }, /Missing required parameter: 'messages'/],
    ['empty messages', request([]), /'messages': empty array/],
    ['an unknown role', request([{ role: 'robot', content: 'x' }]), /Invalid value: "robot". Supported values are: 'system'/],
    ['a user message without content', request([{ role: 'user' }]), /Missing required parameter: 'messages\[0\].content'/],
    ['a system message with null content', request([{ role: 'system', content: null }]), /'messages\[0\].content'.*got null/],
    ['an assistant message with neither', request([{ role: 'assistant', content: null }]), /needs content/],
    ['a tool message without tool_call_id', request([{ role: 'tool', content: 'x' }]), /'messages\[0\].tool_call_id'/],
    [
      'a malformed tool call',
      request([{ role: 'assistant', tool_calls: [{ id: 'a', type: 'function' }] }]),
      /'messages\[0\].tool_calls\[0\].function'/,
    ],
    [
      'stream_options without stream',
      request([{ role: 'user', content: 'x' }], { stream_options: {} }),
      /only allowed when 'stream' is enabled/,
    ],
  ])('rejects %s', (_name, body, expected) => {
    expect(validateConversation(body)).toMatch(expected);
  });

  it('validates the tools array', () => {
    const messages = [{ role: 'user', content: 'x' }];
    const tool = (fn: unknown, type = 'function') => request(messages, { tools: [{ type, function: fn }] });
    expect(validateConversation(tool({ name: 'read_file', parameters: { type: 'object', properties: {} } }))).toBeNull();
    expect(validateConversation(tool({ name: 'no_parameters' }))).toBeNull();
    expect(validateConversation(request(messages, { tools: {} }))).toMatch(/'tools': expected an array/);
    expect(validateConversation(request(messages, { tools: [] }))).toMatch(/'tools': empty array/);
    expect(validateConversation(tool({ name: 'x' }, 'retrieval'))).toMatch(/'tools\[0\].type': expected 'function'/);
    expect(validateConversation(tool(undefined))).toMatch(/'tools\[0\].function'/);
    expect(validateConversation(tool({}))).toMatch(/'tools\[0\].function.name'/);
    expect(validateConversation(tool({ name: 'has space' }))).toMatch(/does not match pattern/);
    expect(validateConversation(tool({ name: 'x', parameters: 'schema' }))).toMatch(/'tools\[0\].function.parameters': expected an object/);
    expect(validateConversation(tool({ name: 'x', parameters: { type: 'string' } }))).toMatch(
      /schema must be a JSON Schema of 'type: "object"'/,
    );
  });
});
