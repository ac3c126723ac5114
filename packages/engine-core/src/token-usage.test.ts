import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { readMetadata } from '@delta/journal';
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

async function run(llm: Record<string, unknown>) {
  server = await startFakeLlm({ script });
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
  return readMetadata(result.paths.metadata);
}

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

  it('refuses a negative price and names the field', async () => {
    const home = await createTempAgent({
      agentYaml: { name: 'bad', llm: { model: 'm', pricing: { input_per_million: -1, output_per_million: 1 } } },
    });
    expect(() => loadAgent(home)).toThrow(/llm\.pricing\.input_per_million/);
  });
});
