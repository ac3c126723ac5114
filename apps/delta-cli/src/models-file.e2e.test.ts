import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  type OtlpReceiver,
  type RecordedRequest,
  redisUnavailable,
  startFakeLlm,
  startOtlpReceiver,
  startTestRedis,
} from '@delta/testkit';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { type RunningDelta, startDelta } from './test-processes.js';

// A models file: two models, each on its own server (two testkit servers) with its own key (two
// variables), prices and parameters. Bravo's server quotes alpha's key back in its answer: every key of
// the file, not only the run's own, must stay out of OUT/, Redis and traces.

const ALPHA_KEY = 'sk-alpha-0123456789abcdef';
const BRAVO_KEY = 'sk-bravo-fedcba9876543210';
const KEYS = { ALPHA_KEY, BRAVO_KEY };

function hasToolResult(request: RecordedRequest): boolean {
  return (request.body as { messages: { role: string }[] }).messages.some((message) => message.role === 'tool');
}

/** One tool call that prints the tool's environment, then an answer; the same usage on every run. */
function script(answer: string) {
  return (request: RecordedRequest) =>
    hasToolResult(request)
      ? { content: answer, usage: { prompt_tokens: 1000, completion_tokens: 200 } }
      : { tool_calls: [{ name: 'show_env', arguments: {} }], usage: { prompt_tokens: 500, completion_tokens: 50, cached_tokens: 100 } };
}

let alpha: FakeLlm;
let bravo: FakeLlm;
const open: Array<{ close: () => Promise<void> }> = [];
const processes: RunningDelta[] = [];
beforeAll(async () => {
  alpha = await startFakeLlm({ script: script('alpha is done') });
  bravo = await startFakeLlm({ script: script(`bravo is done; the other key is ${ALPHA_KEY}`) });
});
afterEach(async () => {
  for (const running of processes.splice(0))
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
  for (const thing of open.splice(0)) await thing.close();
  alpha.requests.length = 0;
  bravo.requests.length = 0;
  await cleanupTempDirs();
});
afterAll(async () => {
  await alpha?.close();
  await bravo?.close();
});

const agentYaml = {
  name: 'two-models',
  // agent.yaml's own model and prices: with a models file, no run may use them.
  llm: { model: 'agent-default', temperature: 0.7, max_retries: 0, pricing: { input_per_million: 100, output_per_million: 100 } },
  sandbox: { mode: 'off' },
  // The environment goes to a workspace file too, which the engine does not redact: it shows what the tool got.
  tools: [{ name: 'show_env', description: "Print the tool's environment", shell: 'env | tee tool-env.txt' }],
};

function modelsYaml(bravoInput = 0.5): string {
  return [
    'models:',
    '  - name: alpha',
    '    model: alpha-id',
    `    base_url: ${alpha.baseUrl}`,
    '    api_key_env: ALPHA_KEY',
    '    pricing: {input_per_million: 2, cached_input_per_million: 1, output_per_million: 8}',
    '    temperature: 0',
    '  - name: bravo',
    '    model: bravo-id',
    `    base_url: ${bravo.baseUrl}`,
    '    api_key_env: BRAVO_KEY',
    `    pricing: {input_per_million: ${bravoInput}, output_per_million: 1.5}`,
    '    reasoning_effort: high',
    '    extra_body: {top_k: 7}',
    '',
  ].join('\n');
}

// By hand: each run's usage is 1500 prompt tokens (100 of them cached), 250 completion tokens.
// alpha: (1400 × 2 + 100 × 1 + 250 × 8) / 1e6; bravo has no cached price, so every prompt token is input: (1500 × 0.5 + 250 × 1.5) / 1e6.
const ALPHA_RUN_COST = (1400 * 2 + 100 * 1 + 250 * 8) / 1_000_000;
const BRAVO_RUN_COST = (1500 * 0.5 + 250 * 1.5) / 1_000_000;

async function setup(): Promise<{ agent: string; directory: string; tasksFile: string; models: string }> {
  const agent = await createTempAgent({ agentYaml });
  const directory = await createTempDir('models-');
  const tasksFile = join(directory, 'tasks.jsonl');
  writeFileSync(tasksFile, `${JSON.stringify({ id: 't1', message: 'do one' })}\n${JSON.stringify({ id: 't2', message: 'do two' })}\n`);
  const models = join(directory, 'models.yaml');
  writeFileSync(models, modelsYaml());
  return { agent, directory, tasksFile, models };
}

/** Every file under `directory` whose bytes hold one of the keys. */
function filesHoldingKeys(directory: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(directory, { recursive: true, encoding: 'utf8' })) {
    const file = join(directory, name);
    if (!statSync(file).isFile()) continue;
    const bytes = readFileSync(file);
    if (bytes.includes(ALPHA_KEY) || bytes.includes(BRAVO_KEY)) found.push(name);
  }
  return found;
}

function expectEachRequestToItsServer(): void {
  expect(alpha.requests.length).toBeGreaterThan(0);
  expect(bravo.requests.length).toBeGreaterThan(0);
  for (const request of alpha.requests) {
    expect(request.headers.authorization).toBe(`Bearer ${ALPHA_KEY}`);
    expect(request.body.model).toBe('alpha-id');
    expect(request.body.temperature).toBe(0);
  }
  for (const request of bravo.requests) {
    expect(request.headers.authorization).toBe(`Bearer ${BRAVO_KEY}`);
    expect(request.body).toMatchObject({ model: 'bravo-id', temperature: 0.7, reasoning_effort: 'high', top_k: 7 });
  }
}

function runCost(workDir: string): number | undefined {
  return readMetadata(runPaths(workDir, readLatestRunId(workDir)!).metadata).estimated_cost?.amount;
}

describe('delta batch --models', () => {
  it("sends each model's runs to its server with its key, costs each with its own prices, and writes no key under OUT", async () => {
    const { agent, tasksFile, models, directory } = await setup();
    const out = join(directory, 'out');
    const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--models', models], { env: KEYS });
    expect(batch.stderr + batch.stdout).not.toContain(ALPHA_KEY);
    expect(batch.stderr + batch.stdout).not.toContain(BRAVO_KEY);
    expect(batch.exitCode, batch.stderr).toBe(0);
    expect(alpha.requests).toHaveLength(4);
    expect(bravo.requests).toHaveLength(4);
    expectEachRequestToItsServer();

    for (const task of ['t1', 't2']) {
      expect(runCost(join(out, task, 'alpha', '1'))).toBeCloseTo(ALPHA_RUN_COST, 12);
      expect(runCost(join(out, task, 'bravo', '1'))).toBeCloseTo(BRAVO_RUN_COST, 12);
      // The tool saw neither key (its own file, never redacted), and the answer that quoted one was recorded without it.
      for (const model of ['alpha', 'bravo']) {
        const seen = readFileSync(join(out, task, model, '1', 'tool-env.txt'), 'utf8');
        expect(seen).toContain('DELTA_RUN_ID=');
        expect(seen).not.toContain('_KEY=');
      }
      const observation = readFileSync(runPaths(join(out, task, 'bravo', '1'), 'run-1').journal, 'utf8');
      expect(observation).toContain('the other key is [REDACTED]');
    }
    const report = await runDelta(['report', out, '--json']);
    expect(report.exitCode, report.stderr).toBe(0);
    const byModel = (JSON.parse(report.stdout) as { by_model: Array<{ name: string; cost: number }> }).by_model;
    expect(byModel.find((row) => row.name === 'alpha')?.cost).toBeCloseTo(2 * ALPHA_RUN_COST, 12);
    expect(byModel.find((row) => row.name === 'bravo')?.cost).toBeCloseTo(2 * BRAVO_RUN_COST, 12);

    const definition = JSON.parse(readFileSync(join(out, '.batch', 'definition.json'), 'utf8'));
    expect(definition.models[1]).toMatchObject({
      name: 'bravo',
      model: 'bravo-id',
      base_url: bravo.baseUrl,
      api_key_env: 'BRAVO_KEY',
      pricing: { input_per_million: 0.5, output_per_million: 1.5 },
      params: { reasoning_effort: 'high', extra_body: { top_k: 7 } },
    });

    const collector: OtlpReceiver = await startOtlpReceiver();
    open.push(collector);
    const exported = await runDelta(['export', 'otel', '-w', join(out, 't1', 'bravo', '1'), '--endpoint', collector.url, '--content']);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const spans = JSON.stringify(collector.spans);
    expect(spans).toContain('the other key is [REDACTED]');
    expect(spans).not.toContain(ALPHA_KEY);
    expect(spans).not.toContain(BRAVO_KEY);
    expect(filesHoldingKeys(out)).toEqual([]);

    // A replay loads the agent with the entry's overrides, recorded in ENGINE_START: it sends what the run sent.
    // Its tools (live) see neither key, though both variables are set: the run recorded their names.
    const into = join(directory, 'replay');
    const replay = await runDelta(['replay', '-w', join(out, 't1', 'bravo', '1'), '--into', into], { env: KEYS });
    expect(replay.stdout + replay.stderr).toContain('identical');
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(readFileSync(join(into, 'tool-env.txt'), 'utf8')).not.toContain('_KEY=');
    expect(filesHoldingKeys(into)).toEqual([]);

    // The same command again resumes the batch; a changed price is another batch, named by model and field.
    expect((await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--models', models], { env: KEYS })).exitCode).toBe(0);
    writeFileSync(models, modelsYaml(0.6));
    const changed = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--models', models], { env: KEYS });
    expect(changed.exitCode).toBe(2);
    expect(changed.stderr).toContain(`${out} holds another batch`);
    expect(changed.stderr).toContain('the model "bravo": its pricing is {"currency":"USD","input_per_million":0.6');
  });

  it('refuses a batch whose model key variable is not set, naming the model and the variable, before any run', async () => {
    const { agent, tasksFile, models, directory } = await setup();
    const out = join(directory, 'out');
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--models', models], { env: { ALPHA_KEY } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('The model "bravo"');
    expect(result.stderr).toContain('BRAVO_KEY, which is not set');
    expect(alpha.requests).toHaveLength(0);
    expect(readdirSync(out)).toEqual(['.batch']);

    // Both variables missing: both named in one error, not one per attempt.
    const neither = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--models', models], { env: {} });
    expect(neither.exitCode).toBe(2);
    expect(neither.stderr).toMatch(/has 2 configuration errors:\n {2}1\. The model "alpha" .*ALPHA_KEY, which is not set/);
    expect(neither.stderr).toMatch(/\n {2}2\. The model "bravo" .*BRAVO_KEY, which is not set/);
  });

  it('refuses a bad field naming the file, the line, the field, the model and the fix', async () => {
    const { agent, tasksFile, models, directory } = await setup();
    writeFileSync(models, modelsYaml().replace('temperature: 0', 'temperature: 5'));
    const out = join(directory, 'out');
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--models', models], { env: KEYS });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `${models}:7:18 models[0].temperature: Too big: expected number to be <=2; found number 5 (model "alpha")`,
    );
    expect(result.stderr).toContain('Hint: A models file lists one entry per model');
  });

  it('refuses a key written in api_key_env without echoing it', async () => {
    const { agent, tasksFile, models, directory } = await setup();
    writeFileSync(models, modelsYaml().replace('api_key_env: BRAVO_KEY', `api_key_env: ${BRAVO_KEY}`));
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'out'), '--models', models], {
      env: KEYS,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `${models}:11:18 models[1].api_key_env: is not the name of an environment variable (letters, digits and _, not starting with a digit); it names the variable that holds the key, never the key itself (model "bravo")`,
    );
    expect(result.stderr).not.toContain(BRAVO_KEY);
  });
});

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

const unavailable = redisUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: the models file's queue test needs redis-server: ${unavailable}\n`);

/** Every key and value of the Redis database, as text. */
async function dumpRedis(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const parts: string[] = [];
    for (const key of await client.keys('*')) {
      const type = await client.type(key);
      const value =
        type === 'string'
          ? await client.get(key)
          : type === 'hash'
            ? await client.hgetall(key)
            : type === 'list'
              ? await client.lrange(key, 0, -1)
              : type === 'set'
                ? await client.smembers(key)
                : type === 'zset'
                  ? await client.zrange(key, '0', '-1', 'WITHSCORES')
                  : type === 'stream'
                    ? await client.xrange(key, '-', '+')
                    : `(${type})`;
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
    return parts.join('\n');
  } finally {
    client.disconnect();
  }
}

describe.skipIf(unavailable)('delta batch --models --queue, delta worker', () => {
  it("the worker runs each model on its own server with its own key, read from the worker's environment; no key reaches Redis", async () => {
    const redis = await startTestRedis();
    open.push({ close: () => redis.stop() });
    const { agent, tasksFile, models, directory } = await setup();
    const out = join(directory, 'out');
    const batch = startDelta(
      ['batch', tasksFile, '--agent', agent, '--out', out, '--models', models, '--queue', redis.url, '--wait'],
      KEYS,
    );
    const worker = startDelta(['worker', '--queue', redis.url, '--concurrency', '2'], KEYS);
    processes.push(batch, worker);
    const ended = await batch.done;
    expect(ended.exitCode, ended.stderr).toBe(0);
    worker.child.kill('SIGTERM');
    await worker.done;
    expectEachRequestToItsServer();
    expect(runCost(join(out, 't2', 'alpha', '1'))).toBeCloseTo(ALPHA_RUN_COST, 12);
    expect(runCost(join(out, 't2', 'bravo', '1'))).toBeCloseTo(BRAVO_RUN_COST, 12);
    const dump = await dumpRedis(redis.url);
    expect(dump).toContain('bravo');
    expect(dump).not.toContain(ALPHA_KEY);
    expect(dump).not.toContain(BRAVO_KEY);
    expect(filesHoldingKeys(out)).toEqual([]);
  });
});
