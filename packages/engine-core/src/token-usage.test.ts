import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal, readMetadata, type ThoughtEvent } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

let server: FakeLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
});

const script = [
  {
    content: 'Looking.',
    tool_calls: [{ name: 'echo', arguments: { text: 'hi' } }],
    usage: { prompt_tokens: 1000, completion_tokens: 200 },
  },
  { content: 'Done.', usage: { prompt_tokens: 3000, completion_tokens: 100 } },
];

async function run(llm: Record<string, unknown>, steps: ScriptStep[] = script, profile = 'openai') {
  server = await startFakeLlm({ script: steps, profile });
  const agent = loadAgent(
    await createTempAgent({
      agentYaml: { name: 'usage', llm: { model: 'm', ...llm }, tools: [{ name: 'echo', description: 'Echo', exec: 'echo ${text}' }] },
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
  return Object.assign(readMetadata(result.paths.metadata), { thoughts });
}

/** The same conversation with the details servers report: cache hits on the second call, reasoning on both. */
const detailed: ScriptStep[] = [
  { ...script[0]!, usage: { prompt_tokens: 1000, completion_tokens: 200, reasoning_tokens: 150 } },
  { ...script[1]!, usage: { prompt_tokens: 3000, completion_tokens: 100, cached_tokens: 2000, reasoning_tokens: 40 } },
];

describe('token usage and estimated cost in metadata.json', () => {
  it('sums the tokens of every model call and estimates the cost from llm.pricing, which is never sent', async () => {
    const metadata = await run({ pricing: { input_per_million: 2.5, output_per_million: 10, currency: 'EUR' } });
    expect(metadata.usage).toEqual({ prompt_tokens: 4000, completion_tokens: 300, total_tokens: 4300 });
    expect(metadata.estimated_cost).toEqual({ amount: 0.013, currency: 'EUR', input_per_million: 2.5, output_per_million: 10 });
    for (const request of server!.requests) expect(request.body).not.toHaveProperty('pricing');
  });

  it('records tokens without a cost when agent.yaml has no prices', async () => {
    const metadata = await run({});
    expect(metadata.usage?.total_tokens).toBe(4300);
    expect(metadata.estimated_cost).toBeUndefined();
  });

  it('records cached and reasoning tokens per call and in the totals, and prices cache hits at the cached-input price', async () => {
    const pricing = { input_per_million: 2.5, cached_input_per_million: 0.25, output_per_million: 10 };
    const metadata = await run({ pricing }, detailed);
    expect(metadata.thoughts.map((thought) => thought.usage)).toEqual([
      { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, reasoning_tokens: 150 },
      { prompt_tokens: 3000, completion_tokens: 100, total_tokens: 3100, cached_tokens: 2000, reasoning_tokens: 40 },
    ]);
    expect(metadata.usage).toEqual({
      prompt_tokens: 4000,
      completion_tokens: 300,
      total_tokens: 4300,
      cached_tokens: 2000,
      reasoning_tokens: 190,
    });
    // 2,000 uncached prompt tokens at 2.5, 2,000 cached at 0.25, 300 completion tokens at 10 (per million).
    expect(metadata.estimated_cost).toEqual({ amount: 0.0085, currency: 'USD', ...pricing });
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cached tokens; without a cached-input price, cache hits cost the input price", async () => {
    const metadata = await run({ pricing: { input_per_million: 2.5, output_per_million: 10 } }, detailed, 'deepseek');
    expect(metadata.usage).toMatchObject({ cached_tokens: 2000, reasoning_tokens: 190 });
    expect(metadata.estimated_cost?.amount).toBeCloseTo(0.013, 10);
  });

  it('leaves the details out when the server reports none', async () => {
    const metadata = await run({}, detailed, 'gemini');
    expect(metadata.usage).toEqual({ prompt_tokens: 4000, completion_tokens: 300, total_tokens: 4300 });
  });

  it('refuses a negative price and names the field', async () => {
    const home = await createTempAgent({
      agentYaml: { name: 'bad', llm: { model: 'm', pricing: { input_per_million: -1, output_per_million: 1 } } },
    });
    expect(() => loadAgent(home)).toThrow(/llm\.pricing\.input_per_million/);
  });
});
