import { tmpdir } from 'node:os';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runPaths } from '@delta/journal';
import { type OtlpReceiver, redisUnavailable, startOtlpReceiver, startTestRedis } from '@delta/testkit';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { startDelta } from './test-processes.test-support.js';
import {
  ALPHA_KEY,
  ALPHA_RUN_COST,
  BRAVO_KEY,
  BRAVO_RUN_COST,
  KEYS,
  alpha,
  bravo,
  cleanUp,
  expectEachRequestToItsServer,
  filesHoldingKeys,
  modelsYaml,
  open,
  processes,
  runCost,
  setup,
  startModelServers,
  stopModelServers,
} from './models-file.test-support.js';

beforeAll(startModelServers);
afterEach(cleanUp);
afterAll(stopModelServers);

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
    const worker = startDelta(['worker', '--queue', redis.url, '--root', tmpdir(), '--concurrency', '2'], KEYS);
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
