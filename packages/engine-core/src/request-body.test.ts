import { describe, expect, it } from 'vitest';
import { RequestBodyBuilder } from './request-body.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const json = (payload: object) => Buffer.from(JSON.stringify(payload), 'utf8');

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
    const check = (payload: object) => expect(Buffer.compare(builder.build(payload), json(payload))).toBe(0);
    for (let n = 1; n <= 300; n += 1) {
      messages.push(call(n), result(n));
      check({ temperature: 0.2, model: 'm', tools, messages: [...messages] });
    }
    // A window that drops early turns, a replaced message, other parameters, no parameters, no messages.
    check({ temperature: 0.2, model: 'm', tools, messages: [system, user, ...messages.slice(-10)] });
    check({ temperature: 0.2, model: 'm', tools, messages: [system, { ...user }, ...messages.slice(2)] });
    check({ model: 'other', tools, messages });
    check({ messages });
    check({ messages: [] });
    check({ model: 'm', messages: [null, 'text', 3, undefined, user] });
  });

  it('serializes whole a payload whose messages are not its last key, or not an array', () => {
    const builder = new RequestBodyBuilder();
    for (const payload of [{ messages: [user], model: 'm' }, { model: 'm', messages: 'not an array' }, { model: 'm' }]) {
      expect(text(builder.build(payload))).toBe(JSON.stringify(payload));
    }
    // And is back on its incremental path after such a payload.
    expect(text(builder.build({ model: 'm', messages: [user] }))).toBe(JSON.stringify({ model: 'm', messages: [user] }));
  });
});
