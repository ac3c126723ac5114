import { join } from 'node:path';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import { startOtlpReceiver } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import {
  ALPHA_KEY,
  BRAVO_KEY,
  BRAVO_RUN_COST,
  KEYS,
  alpha,
  bravo,
  cleanUp,
  filesHoldingKeys,
  open,
  runCost,
  setup,
  startModelServers,
  stopModelServers,
} from './models-file.test-support.js';

beforeAll(startModelServers);
afterEach(cleanUp);
afterAll(stopModelServers);

describe('delta run --models', () => {
  it('runs the entry --model names on its server with its key and price; its live trace holds no key', async () => {
    const { agent, models, directory } = await setup();
    const work = join(directory, 'w');
    const collector = await startOtlpReceiver();
    open.push(collector);
    const env = { ...KEYS, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' };
    const result = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'go', '--models', models, '--model', 'bravo'], { env });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('the other key is [REDACTED]');
    expect(alpha.requests).toHaveLength(0);
    expect(bravo.requests).toHaveLength(2);
    for (const request of bravo.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${BRAVO_KEY}`);
      expect(request.body).toMatchObject({ model: 'bravo-id', temperature: 0.7, reasoning_effort: 'high', top_k: 7 });
    }
    expect(runCost(work)).toBeCloseTo(BRAVO_RUN_COST, 12);
    const spans = JSON.stringify(collector.spans);
    expect(spans).toContain('[REDACTED]');
    expect(spans).not.toContain(ALPHA_KEY);
    expect(spans).not.toContain(BRAVO_KEY);
    expect(filesHoldingKeys(work)).toEqual([]);
    // Recorded: where the run went and the variable its key came from, never the key.
    const metadata = readMetadata(runPaths(work, readLatestRunId(work)!).metadata);
    expect(metadata.model_endpoint).toEqual({
      base_url: bravo.baseUrl,
      base_url_source: 'option',
      api_key_name: 'BRAVO_KEY',
      api_key_source: 'environment',
      secret_variables: ['ALPHA_KEY', 'BRAVO_KEY'],
    });

    // delta continue --models goes on with the same entry: its server, key, parameters and prices.
    bravo.requests.length = 0;
    const more = await runDelta(['continue', '-w', work, '-m', 'again', '--models', models, '--model', 'bravo'], { env: KEYS });
    expect(more.exitCode, more.stderr).toBe(0);
    expect(alpha.requests).toHaveLength(0);
    // The conversation already holds a tool result: one answer, 1000 prompt and 200 completion tokens more.
    expect(bravo.requests).toHaveLength(1);
    expect(bravo.requests[0]!.headers.authorization).toBe(`Bearer ${BRAVO_KEY}`);
    expect(bravo.requests[0]!.body).toMatchObject({ model: 'bravo-id', temperature: 0.7, reasoning_effort: 'high', top_k: 7 });
    expect(runCost(work)).toBeCloseTo(BRAVO_RUN_COST + (1000 * 0.5 + 200 * 1.5) / 1_000_000, 12);
    expect(filesHoldingKeys(work)).toEqual([]);

    // A plain delta continue (no --models): agent.yaml's llm:, but the recorded endpoint and key variable.
    bravo.requests.length = 0;
    const plain = await runDelta(['continue', '-w', work, '-m', 'and again'], { env: KEYS });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(bravo.requests[0]!.headers.authorization).toBe(`Bearer ${BRAVO_KEY}`);
    expect(filesHoldingKeys(work)).toEqual([]);
  });

  it('refuses a model name the file does not have, listing those it has', async () => {
    const { agent, models, directory } = await setup();
    const result = await runDelta(
      ['run', '--agent', agent, '-w', join(directory, 'w'), '-m', 'go', '--models', models, '--model', 'charlie'],
      {
        env: KEYS,
      },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`--model charlie: ${models} has no model named "charlie".`);
    expect(result.stderr).toContain('alpha, bravo');
    const none = await runDelta(['run', '--agent', agent, '-w', join(directory, 'w'), '-m', 'go', '--models', models], { env: KEYS });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('has 2 models; say which one this run uses');
  });
});
