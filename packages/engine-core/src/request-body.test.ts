import { describe, expect, it } from 'vitest';
import { RequestBodyBuilder } from './request-body.js';

const json = (payload: object) => Buffer.from(JSON.stringify(payload), 'utf8');
const texts = (messages: readonly unknown[]) => messages.map((message) => JSON.stringify(message));

describe('RequestBodyBuilder', () => {
  const tools = [
    { type: 'function', function: { name: 'step', description: 'One "step"', parameters: { type: 'object', properties: {} } } },
  ];
  const system = { role: 'system', content: 'You are\nhelpful \u2028 "quoted" \u00e9\u{1F600}' };
  const user = { role: 'user', content: 'go' };
  const call = (n: number) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'step', arguments: '{}' } }],
  });
  const result = (n: number) => ({ role: 'tool', tool_call_id: `call_${n}`, content: `ok ${n} \u00fc\n`, skipped: undefined });

  it('gives exactly the UTF-8 of JSON.stringify(payload) as a conversation grows, is cut back, and changes', () => {
    const builder = new RequestBodyBuilder();
    const messages: object[] = [system, user];
    const check = (parameters: object, list: readonly object[]) =>
      expect(Buffer.compare(builder.build(parameters, texts(list), list), json({ ...parameters, messages: list }))).toBe(0);
    const parameters = { temperature: 0.2, model: 'm', tools };
    for (let n = 1; n <= 300; n += 1) {
      messages.push(call(n), result(n));
      check(parameters, [...messages]);
    }
    // A window that drops early turns, a replaced message, other parameters, no parameters, no messages.
    check(parameters, [system, user, ...messages.slice(-10)]);
    check(parameters, [system, { ...user, content: 'changed' }, ...messages.slice(2)]);
    check({ model: 'other', tools }, messages);
    check({}, messages);
    check({}, []);
    check({ model: 'm', undefinedIsLeftOut: undefined }, [user]);
  });

  it('keeps only the bytes of messages whose texts are equal: a message changed in place is sent as it is now', () => {
    const builder = new RequestBodyBuilder();
    const message = { role: 'user', content: 'first' };
    const first = Buffer.from(builder.build({ model: 'm' }, texts([system, message]), [system, message]));
    message.content = 'second';
    const second = builder.build({ model: 'm' }, texts([system, message]), [system, message]);
    expect(Buffer.from(second).toString()).toBe(JSON.stringify({ model: 'm', messages: [system, message] }));
    expect(first.toString()).toContain('"first"');
  });

  it('gives the exact bytes again after a large message (whose text it does not keep), however the conversation goes on', () => {
    const builder = new RequestBodyBuilder();
    const large = (n: number) => ({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: `call_${n}`, type: 'function', function: { name: 'step', arguments: JSON.stringify({ data: `${n}é😀"`.repeat(300_000) }) } },
      ],
    });
    const messages: object[] = [system, user, large(1), result(1)];
    const check = (list: readonly object[]) =>
      expect(Buffer.compare(builder.build({ model: 'm', tools }, texts(list), list), json({ model: 'm', tools, messages: list }))).toBe(0);
    check(messages);
    messages.push(call(2), result(2));
    check(messages);
    // The large message replaced by another as large: no byte of the first may stay.
    check([system, user, large(3), result(3)]);
    check([system, user]);
  });

  it('writes a message given without its JSON text from the message, its large strings a piece at a time, byte for byte', () => {
    const builder = new RequestBodyBuilder();
    const large = JSON.stringify({ data: 'é😀"\\\n\u0001x'.repeat(100_000) });
    const assistant = {
      role: 'assistant',
      content: 'c'.repeat(70_000),
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'step', arguments: large } },
        { id: 'b', type: 'function', function: { name: 'step', arguments: '{}' } },
      ],
    };
    // The stand-in for large strings, written by the model itself: that message is written whole.
    const sly = { role: 'user', content: '\u0000delta:large string\u0000', also: 'y'.repeat(70_000) };
    for (const list of [
      [system, user, assistant, result(1)],
      [system, user, assistant, result(1), sly],
      [system, sly, user],
    ]) {
      const given = texts(list).map((text, index) => (list[index] === assistant || list[index] === sly ? undefined : text));
      expect(Buffer.compare(builder.build({ model: 'm' }, given, list), json({ model: 'm', messages: list }))).toBe(0);
    }
  });
});
