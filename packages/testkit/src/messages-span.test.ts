import { describe, expect, it } from 'vitest';
import { continueMessagesSpan, findMessagesSpan } from './messages-span.js';

/** The text of the messages array's span, or null. */
function spanText(text: string): string | null {
  const bytes = Buffer.from(text);
  const span = findMessagesSpan(bytes);
  return span && bytes.toString('utf8', span.start, span.end);
}

describe('findMessagesSpan', () => {
  it('finds the array among other keys, past strings holding brackets, quotes and backslashes', () => {
    const messages = '{"content":"]}[{\\"\\\\"},[1,{"a":[]}],"é😀",-1.5e3,true,null';
    expect(spanText(`{"model":"m","tools":[{"name":"x]"}],"messages":[${messages}],"stream":false}`)).toBe(messages);
    expect(spanText(`{ "messages" : [ ${messages} ] , "model" : "m" }`)).toBe(` ${messages}`);
    expect(spanText('{"m\\u0065ssages":[1,2]}')).toBe('1,2');
  });

  it('gives up when there is no messages array or the key comes twice', () => {
    expect(spanText('[1]')).toBeNull();
    expect(spanText('{"model":"m"}')).toBeNull();
    expect(spanText('{"messages":"none"}')).toBeNull();
    expect(spanText('{"messages":[1],"messages":[2]}')).toBeNull();
    expect(spanText('{"messages":[1],"m\\u0065ssages":[2]}')).toBeNull();
  });
});

describe('continueMessagesSpan', () => {
  const earlier = '{"model":"m","messages":[{"role":"user","content":"hi"}';
  const continued = (rest: string) => {
    const bytes = Buffer.from(earlier + rest);
    const end = continueMessagesSpan(bytes, Buffer.byteLength(earlier));
    return end === null ? null : bytes.toString('utf8', Buffer.byteLength(earlier), end);
  };

  it('finds the end of the messages that follow', () => {
    expect(continued(']}')).toBe('');
    expect(continued(' , {"role":"user","content":"]"} ,2 ]\n,"tools":[]}')).toBe(' , {"role":"user","content":"]"} ,2');
  });

  it('gives up on a trailing comma, a missing comma or a later messages key', () => {
    expect(continued(',]}')).toBeNull();
    expect(continued(' {"role":"user"}]}')).toBeNull();
    expect(continued('],"messages":[]}')).toBeNull();
  });
});
