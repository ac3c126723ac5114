import { afterEach, describe, expect, it } from 'vitest';
import { type FakeLlm, startFakeLlm } from './fake-llm.js';
import { runCli } from './run-cli.js';
import { SERVER_PROFILES, serverProfile } from './server-profiles.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function post(body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${llm!.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

const question = { role: 'user', content: 'hi' };
const call = { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } };

describe('server profiles', () => {
  it('names every profile once and documents each', () => {
    const names = SERVER_PROFILES.map((profile) => profile.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([
      'openai',
      'vllm',
      'ollama',
      'llama.cpp',
      'lm-studio',
      'openrouter',
      'litellm',
      'deepseek',
      'gemini',
      'anthropic',
    ]);
    for (const profile of SERVER_PROFILES) expect(profile.sources.length).toBeGreaterThan(0);
    expect(() => serverProfile('nope')).toThrow("unknown server profile 'nope' (known: openai, vllm,");
  });

  it('deepseek sends blank keep-alive lines first and refuses reasoning_content sent back', async () => {
    llm = await startFakeLlm({ script: [{ content: 'a', reasoning: 'r' }, { content: 'b' }], profile: 'deepseek' });
    const first = await post({ model: 'deepseek-reasoner', messages: [question] });
    expect(first.text.startsWith('\n\n{')).toBe(true);
    expect(JSON.parse(first.text).choices[0].message.reasoning_content).toBe('r');
    const again = await post({
      model: 'deepseek-reasoner',
      messages: [question, { role: 'assistant', content: 'a', reasoning_content: 'r' }, { role: 'user', content: 'more' }],
    });
    expect(again.status).toBe(400);
    expect(again.text).toContain('The reasoning_content of message 1 is not allowed in the input');
  });

  it('gemini wants the thought signature of each call back', async () => {
    llm = await startFakeLlm({ script: [{ content: 'x' }, { content: 'y' }], profile: 'gemini' });
    const tool = { role: 'tool', tool_call_id: 'c1', content: 'ok' };
    const without = await post({ model: 'g', messages: [question, { role: 'assistant', content: null, tool_calls: [call] }, tool] });
    expect(without.status).toBe(400);
    expect(without.text).toContain('missing a thought_signature');
    const signed = { ...call, extra_content: { google: { thought_signature: 's' } } };
    expect(
      (await post({ model: 'g', messages: [question, { role: 'assistant', content: null, tool_calls: [signed] }, tool] })).status,
    ).toBe(200);
  });

  it('openrouter keeps its stream alive with comments', async () => {
    llm = await startFakeLlm({ script: [{ content: 'hello' }], profile: 'openrouter' });
    const { text } = await post({ model: 'm', stream: true, messages: [question] });
    expect(text.startsWith(': OPENROUTER PROCESSING\n\ndata: ')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('refuses an unknown --profile with the names it knows', async () => {
    let stderr = '';
    const code = await runCli(['--script', 'x.yaml', '--profile', 'nope'], {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
      env: {},
    });
    expect(code).toBe(2);
    expect(stderr).toContain("unknown --profile 'nope' (known: openai, vllm, ollama, llama.cpp");
  });
});
