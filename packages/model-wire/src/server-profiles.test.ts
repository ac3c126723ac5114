import { cleanupTestResources, SERVER_PROFILES, type ScriptStepInput, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelWire } from './model-wire.js';

afterEach(cleanupTestResources);

const step: ScriptStepInput = {
  content: 'I will read both files.',
  reasoning: 'Two files are needed.',
  tool_calls: [
    { name: 'read_file', arguments: { path: 'a.txt' } },
    { name: 'read_file', arguments: { path: 'b.txt' } },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 30, cached_tokens: 100, reasoning_tokens: 12 },
};

function body(stream: boolean): string {
  return JSON.stringify({
    model: 'm',
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    messages: [{ role: 'user', content: 'go' }],
  });
}

describe.each(SERVER_PROFILES.map((profile) => [profile.name, profile] as const))('the %s profile', (_name, profile) => {
  it.each([false, true])('gives one usable answer (streamed: %s)', async (stream) => {
    const server = await startFakeLlm({ script: [step], profile });
    const reply = await createModelWire({ baseUrl: server.baseUrl, apiKey: 'k' }).send({ body: body(stream), stream });
    const { turn } = reply;
    expect(reply.streamed).toBe(stream);
    expect(turn.content).toBe('I will read both files.');
    expect(turn.tool_calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['read_file', { path: 'a.txt' }],
      ['read_file', { path: 'b.txt' }],
    ]);
    const ids = turn.tool_calls.map((call) => call.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).not.toBe('');
    if (profile.dialect.reasoning === 'none') expect(turn.reasoning).toBeUndefined();
    else expect(turn.reasoning).toBe('Two files are needed.');
    expect(turn.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 });
    if (profile.dialect.usage !== 'plain') expect(turn.usage).toMatchObject({ cached_tokens: 100, reasoning_tokens: 12 });
  });
});
