import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAgent } from '@delta/engine';
import { cleanupTempDirs, createTempAgent, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type BatchDefinition, definitionDifferences } from './batch-definition.js';
import { batchModelOf, checkModelKeys, modelRunOptions } from './batch-model-entry.js';
import { agentForModel, modelClientOptionsOf } from './model-entry.js';
import { pickModelEntry, readModelsFile } from './models-file.js';

afterEach(() => cleanupTempDirs());

async function modelsFile(text: string): Promise<string> {
  const file = join(await createTempDir('models-'), 'models.yaml');
  writeFileSync(file, text);
  return file;
}

const TWO = `models:
  - name: small
    model: gpt-4o-mini
    base_url: http://127.0.0.1:9/v1
    api_key_env: SMALL_KEY
    pricing: {input_per_million: 0.15, output_per_million: 0.6}
    temperature: 0
  - name: local
    model: qwen3
    base_url: http://127.0.0.1:8000/v1
    reasoning_effort: low
    extra_body: {top_k: 20}
`;

function failure(run: () => unknown): { code: string; message: string; hint?: string } {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string; hint?: string };
  }
  throw new Error('no error');
}

describe('readModelsFile', () => {
  it('reads each entry with its fields, in order', async () => {
    const file = await modelsFile(TWO);
    const models = readModelsFile(file);
    expect(models.file).toBe(file);
    expect(models.entries.map((entry) => entry.name)).toEqual(['small', 'local']);
    expect(batchModelOf(models.entries[1]!)).toEqual({
      name: 'local',
      directory: 'local',
      override: true,
      model: 'qwen3',
      base_url: 'http://127.0.0.1:8000/v1',
      params: { reasoning_effort: 'low', extra_body: { top_k: 20 } },
    });
  });

  it('names the file, the line, the field, the model and the fix', async () => {
    const file = await modelsFile(
      TWO.replace('input_per_million: 0.15', 'input_per_million: -1').replace('temperature: 0', 'temprature: 0'),
    );
    const error = failure(() => readModelsFile(file));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      `${file}:7:5 models[0].temprature: unknown key "temprature": did you mean "temperature"? (model "small")`,
    );
    expect(error.message).toContain(
      `${file}:6:34 models[0].pricing.input_per_million: Too small: expected number to be >=0; found number -1 (model "small")`,
    );
    expect(error.hint).toBe(
      'Rename models[0].temprature to models[0].temperature.\npricing gives the prices per million tokens: input_per_million, output_per_million, and optionally cached_input_per_million and currency (USD by default).',
    );
  });

  it('refuses two entries with one name, or names that share a directory', async () => {
    const file = await modelsFile(
      `${TWO}  - name: small\n    model: other\n  - name: "x y"\n    model: other\n  - name: x_y\n    model: other\n`,
    );
    const error = failure(() => readModelsFile(file));
    expect(error.message).toContain('models[2].name: "small" names two entries');
    expect(error.message).toContain('models[2].name: "small" names two entries; each model\'s name is its own (model "small")\n');
    expect(error.message).toContain('models[4].name: "x_y" and "x y" would share the directory "x_y" under each task');
  });

  it('says a missing file is missing, with the flag to check', async () => {
    const error = failure(() => readModelsFile('/nonexistent/models.yaml'));
    expect(error.code).toBe('CONFIG_MISSING');
    expect(error.message).toBe('The models file /nonexistent/models.yaml does not exist.');
    expect(error.hint).toContain('--models');
  });
});

describe('pickModelEntry', () => {
  it('picks by name, takes the only entry of a one-entry file, and lists the names otherwise', async () => {
    const models = readModelsFile(await modelsFile(TWO));
    expect(pickModelEntry(models, 'local').model).toBe('qwen3');
    expect(failure(() => pickModelEntry(models, undefined)).hint).toBe('Pass --model NAME with one of: small, local.');
    expect(failure(() => pickModelEntry(models, 'big')).message).toContain('has no model named "big"');
    const one = { ...models, entries: [models.entries[0]!] };
    expect(pickModelEntry(one, undefined).name).toBe('small');
  });
});

describe('a model entry in a run', () => {
  it("lays its fields over agent.yaml's llm:, with its own prices or none", async () => {
    const home = await createTempAgent({
      agentYaml: {
        name: 'a',
        llm: {
          model: 'base',
          temperature: 0.7,
          max_retries: 1,
          extra_body: { seed_text: 'x' },
          pricing: { input_per_million: 9, output_per_million: 9 },
        },
      },
    });
    const agent = loadAgent(home);
    const models = readModelsFile(await modelsFile(TWO));
    const small = agentForModel(agent, models.entries[0]!).config.llm;
    expect(small).toMatchObject({ model: 'gpt-4o-mini', temperature: 0, max_retries: 1, pricing: { input_per_million: 0.15 } });
    const local = agentForModel(agent, models.entries[1]!).config.llm;
    expect(local).toMatchObject({ model: 'qwen3', temperature: 0.7, reasoning_effort: 'low', extra_body: { seed_text: 'x', top_k: 20 } });
    expect(local.pricing).toBeUndefined();
    const clash = { ...models.entries[1]!, extra_body: { temperature: 1 } };
    const error = failure(() => agentForModel(agent, clash, 'models.yaml'));
    expect(error.message).toBe(
      `The model "local" of models.yaml does not fit ${agent.configFile}: llm.extra_body.temperature: "temperature" is set both in llm: and in llm.extra_body; keep one.`,
    );
  });

  it("reads each model's key from its variable, redacts every key of the file, and names a missing variable", async () => {
    const models = readModelsFile(
      await modelsFile(TWO.replace('    reasoning_effort', '    api_key_env: LOCAL_KEY\n    reasoning_effort')),
    );
    const definition = { models: models.entries.map(batchModelOf), models_file: models.file };
    const environment = { SMALL_KEY: 'small-key-123456', LOCAL_KEY: 'local-key-654321' };
    expect(modelRunOptions(definition, 'local', environment)).toEqual({
      baseUrl: 'http://127.0.0.1:8000/v1',
      apiKey: 'local-key-654321',
      apiKeyName: 'LOCAL_KEY',
      secretVariables: ['SMALL_KEY', 'LOCAL_KEY'],
    });
    expect(modelClientOptionsOf(models.entries[0]!, environment)).toEqual({ apiKey: 'small-key-123456', baseUrl: 'http://127.0.0.1:9/v1' });
    const missing = failure(() => checkModelKeys(definition, { SMALL_KEY: 'small-key-123456', LOCAL_KEY: ' ' }));
    expect(missing.code).toBe('API_KEY_MISSING');
    expect(missing.message).toBe(
      `The model "local" of ${models.file} reads its key from the environment variable LOCAL_KEY, which is empty.`,
    );
  });
});

describe('definitionDifferences', () => {
  it('names the model and the field of an entry that changed', async () => {
    const before = readModelsFile(await modelsFile(TWO));
    const after = readModelsFile(
      await modelsFile(TWO.replace('http://127.0.0.1:8000/v1', 'http://127.0.0.1:8001/v1').replace('top_k: 20', 'top_k: 21')),
    );
    const definition = (file: typeof before) =>
      ({
        tasks_sha256: 'x',
        agent: 'a',
        models: file.entries.map(batchModelOf),
        repeat: 1,
        set: [],
        grader: null,
      }) as unknown as BatchDefinition;
    expect(definitionDifferences(definition(before), definition(after))).toEqual([
      'the model "local": its base_url is "http://127.0.0.1:8001/v1", the batch has "http://127.0.0.1:8000/v1"',
      'the model "local": its params is {"extra_body":{"top_k":21},"reasoning_effort":"low"}, the batch has {"extra_body":{"top_k":20},"reasoning_effort":"low"}',
    ]);
    expect(definitionDifferences(definition(before), definition(before))).toEqual([]);
  });
});
