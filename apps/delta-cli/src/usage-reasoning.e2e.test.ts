import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, modelEnv } from '@delta/testkit';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import { runDelta } from './test-support.js';

// Cached and reasoning tokens as the server reported them, the cost with a cached-input price, the
// model's reasoning and the retries: in `delta list`, `delta show run`, `delta show invocation`,
// `delta log` and `delta view`.

let server: FakeLlm;
let workDir: string;
let runId: string;

beforeAll(async () => {
  // OpenRouter's dialect: reasoning in `reasoning` plus `reasoning_details`, usage with both details.
  server = await startFakeLlm({
    profile: 'openrouter',
    script: [
      { error: { status: 502, message: 'upstream hiccup', retry_after: 0 } },
      {
        content: 'Echoing first.',
        reasoning: 'The user wants an echo; call the tool.',
        tool_calls: [{ name: 'echo', arguments: { text: 'hi' } }],
        usage: { prompt_tokens: 1000, completion_tokens: 200, reasoning_tokens: 150 },
      },
      {
        content: 'Done.',
        reasoning: 'The echo worked.',
        usage: { prompt_tokens: 3000, completion_tokens: 100, cached_tokens: 2000, reasoning_tokens: 40 },
      },
    ],
  });
  const agent = await createTempAgent({
    agentYaml: {
      name: 'thinker',
      llm: { model: 'm', pricing: { input_per_million: 2.5, cached_input_per_million: 0.25, output_per_million: 10 } },
      tools: [{ name: 'echo', description: 'Echo', exec: 'echo -- ${text}' }],
    },
  });
  workDir = join(await createTempDir('work-'), 'ws');
  const result = await runDelta(['run', '--agent', agent, '-m', 'echo hi', '-w', workDir], {
    env: modelEnv(server),
  });
  expect(result.exitCode, result.stderr).toBe(0);
  runId = readLatestRunId(workDir)!;
});

afterAll(async () => {
  await server.close();
  await cleanupTempDirs();
});

describe('usage details, cost and reasoning in the inspection commands', () => {
  it('metadata.json sums cached and reasoning tokens and prices cache hits at the cached-input price', () => {
    const metadata = readMetadata(runPaths(workDir, runId).metadata);
    expect(metadata.usage).toEqual({
      prompt_tokens: 4000,
      completion_tokens: 300,
      total_tokens: 4300,
      cached_tokens: 2000,
      reasoning_tokens: 190,
    });
    // 2,000 uncached prompt tokens at 2.5, 2,000 cached at 0.25, 300 completion tokens at 10, per million.
    expect(metadata.estimated_cost).toEqual({
      amount: 0.0085,
      currency: 'USD',
      input_per_million: 2.5,
      cached_input_per_million: 0.25,
      output_per_million: 10,
    });
  });

  it('delta list has CACHED and REASONING columns', async () => {
    const result = await runDelta(['list', '-w', workDir]);
    expect(result.exitCode).toBe(0);
    const [header, row] = result.stdout.split('\n');
    expect(header).toMatch(/^RUN ID\s+STATUS\s+ITER\s+TOKENS\s+CACHED\s+REASONING\s+COST\s+STARTED\s+DURATION\s+TASK$/);
    expect(row).toMatch(new RegExp(`^${runId}\\s+COMPLETED\\s+2/30\\s+4,300\\s+2,000\\s+190\\s+0\\.0085 USD\\s`));
  });

  it('delta show run gives the totals, the prices, the retries and each call', async () => {
    const result = await runDelta(['show', 'run', '-w', workDir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`== run ${runId} (agent thinker)\nCOMPLETED, 2 of 30 iterations, `);
    expect(result.stdout).toContain('\ntask: echo hi\n');
    expect(result.stdout).toContain('tokens 4,300: 4,000 tokens in (2,000 cached), 300 out (190 reasoning)\n');
    expect(result.stdout).toContain('estimated cost 0.0085 USD (per million tokens: input 2.5, cached input 0.25, output 10)\n');
    expect(result.stdout).toContain('model retries: 1\n');
    expect(result.stdout).toMatch(/ {2}1 {2}0001_\w+ {2}iteration 1: 1,000 tokens in, 200 out \(150 reasoning\), 1 retry, reasoning\n/);
    expect(result.stdout).toMatch(
      / {2}2 {2}0002_\w+ {2}iteration 2: 3,000 tokens in \(2,000 cached\), 100 out \(40 reasoning\), reasoning\n/,
    );
  });

  it('delta show invocation gives the call tokens and the reasoning', async () => {
    const result = await runDelta(['show', 'invocation', '1', '-w', workDir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(', tokens 1,000 in + 200 out (150 reasoning), ');
    expect(result.stdout).toContain('== reasoning\nThe user wants an echo; call the tool.\n== request (exact bytes sent)\n');
  });

  it('delta log shows the reasoning before what the model said, and the token details', async () => {
    const result = await runDelta(['log', '-w', workDir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /\d\d:\d\d:\d\d {2}REASONING The user wants an echo; call the tool\.\n\d\d:\d\d:\d\d {2}THOUGHT {3}Echoing first\./,
    );
    expect(result.stdout).toContain('(3,000 tokens in (2,000 cached), 100 out (40 reasoning))');
    expect(result.stdout).toMatch(
      /SYSTEM {4}WARN: model: HTTP 502 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions, retry 1\/2 in 0\.0 s/,
    );
  });

  it('delta view shows the reasoning and the totals with their details', async () => {
    const result = await runDelta(['view', '-w', workDir, '--stdout']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('<summary>Reasoning</summary><pre>The user wants an echo; call the tool.</pre>');
    expect(result.stdout).toContain('<summary>Reasoning</summary><pre>The echo worked.</pre>');
    expect(result.stdout).toContain('4,300 (4,000 in (2,000 cached), 300 out (190 reasoning))');
    expect(result.stdout).toContain('3,000 tokens in (2,000 cached), 100 out (40 reasoning)');
  });
});
