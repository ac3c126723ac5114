import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal, type ThoughtEvent } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

// The model's reasoning is kept in the journal whatever field the server put it in; it goes back to the
// model in later requests only with llm.send_reasoning: true (DeepSeek refuses it, interleaved-thinking
// models want it).

afterEach(cleanupTestResources);

const script: ScriptStep[] = [
  {
    content: 'Echoing first.',
    reasoning: 'The user wants an echo; call the tool.',
    tool_calls: [{ name: 'echo', arguments: { text: 'hi' } }],
  },
  { content: 'Done.', reasoning: 'The echo worked.' },
];

async function run(profile: string, llm: Record<string, unknown> = {}) {
  const server = await startFakeLlm({ script, profile });
  const agent = loadAgent(
    await createTempAgent({
      agentYaml: { name: 'thinker', llm: { model: 'm', ...llm }, tools: [{ name: 'echo', description: 'Echo', exec: 'echo -- ${text}' }] },
    }),
  );
  const result = await startRun({
    agent,
    message: 'task',
    workDir: join(await createTempDir('work-'), 'w'),
    apiKey: 'k',
    baseUrl: server.baseUrl,
  });
  const thoughts = readJournal(result.paths.journal).filter((event): event is ThoughtEvent => event.type === 'THOUGHT');
  const assistant = (index: number) =>
    (server.requests[index]?.body?.messages as Array<Record<string, unknown>> | undefined)?.find((message) => message.role === 'assistant');
  return { result, thoughts, assistant, server };
}

describe('reasoning', () => {
  it('is kept in the journal and, by default, never sent back: DeepSeek accepts the next request', async () => {
    const { result, thoughts, assistant } = await run('deepseek');
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'Done.' });
    expect(thoughts.map((thought) => [thought.reasoning, thought.reasoning_field])).toEqual([
      ['The user wants an echo; call the tool.', 'reasoning_content'],
      ['The echo worked.', 'reasoning_content'],
    ]);
    expect(assistant(1)).toEqual({
      role: 'assistant',
      content: 'Echoing first.',
      tool_calls: [expect.objectContaining({ type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } })],
    });
  });

  it('with llm.send_reasoning: true goes back under the field it came in, and DeepSeek refuses it', async () => {
    const { result, server } = await run('deepseek', { send_reasoning: true, max_retries: 0 });
    expect(result.status).toBe('FAILED');
    expect(result.reason).toContain('The reasoning_content of message 2 is not allowed in the input');
    const refused = server.requests[1]!.body.messages[2];
    expect(refused).toMatchObject({ role: 'assistant', reasoning_content: 'The user wants an echo; call the tool.' });
  });

  it('with llm.send_reasoning: true goes back to OpenRouter as reasoning with its reasoning_details, as sent', async () => {
    const { result, thoughts, assistant } = await run('openrouter', { send_reasoning: true });
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'Done.' });
    const details = [{ type: 'reasoning.text', text: 'The user wants an echo; call the tool.', format: 'unknown', index: 0 }];
    expect(thoughts[0]).toMatchObject({
      reasoning: 'The user wants an echo; call the tool.',
      reasoning_field: 'reasoning',
      reasoning_details: details,
    });
    expect(assistant(1)).toMatchObject({
      role: 'assistant',
      content: 'Echoing first.',
      reasoning: 'The user wants an echo; call the tool.',
      reasoning_details: details,
    });
    expect(assistant(1)).not.toHaveProperty('reasoning_content');
  });

  it('is not sent back to OpenRouter without the setting', async () => {
    const { assistant } = await run('openrouter');
    expect(Object.keys(assistant(1)!)).toEqual(['role', 'content', 'tool_calls']);
  });
});

describe('what a server attached to a tool call', () => {
  it("goes back with the call: Gemini's thought signature, without which it refuses the next request", async () => {
    const { result, thoughts, assistant } = await run('gemini');
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'Done.' });
    const extra = thoughts[0]!.tool_calls[0]!.extra as { extra_content: { google: { thought_signature: string } } };
    expect(extra.extra_content.google.thought_signature).toMatch(/^sig-/);
    expect((assistant(1)!.tool_calls as Array<Record<string, unknown>>)[0]).toMatchObject(extra);
  });
});
