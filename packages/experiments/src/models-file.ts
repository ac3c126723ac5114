import { resolve } from 'node:path';
import { LlmConfig, LlmPricing } from '@delta/engine';
import { ConfigurationError, DeltaError, formatFieldPath } from '@delta/errors';
import { ConfigFileError, type ConfigProblem, readYamlConfig } from '@delta/yaml-config';
import { z } from 'zod';
import { modelDirectoryName } from './batch-layout.js';

/** The name of an environment variable: what `api_key_env` holds (never the key itself). */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `llm:`'s fields but `model` and `pricing`: the request parameters and engine settings an entry may give. */
const { model: _model, pricing: _pricing, ...llmFields } = LlmConfig.shape;

/**
 * One entry of a models file: a name for reports and directories, the model id sent, where it is served,
 * the variable that holds its key, its prices, and any field of agent.yaml's `llm:` (temperature,
 * reasoning_effort, extra_body, max_retries...), laid over agent.yaml's for this model's runs.
 */
export const ModelEntry = z.strictObject({
  name: z.string().trim().min(1),
  model: z.string().trim().min(1),
  base_url: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(),
  // Checked after parsing (see entryProblems), so that a key written here by mistake is never echoed back.
  api_key_env: z.string().optional(),
  pricing: LlmPricing.optional(),
  ...llmFields,
});
export type ModelEntry = z.infer<typeof ModelEntry>;

/** A models file (`--models models.yaml`): `models:`, a list of entries. */
export const ModelsFile = z.strictObject({ models: z.array(ModelEntry).min(1) });
export type ModelsFile = z.infer<typeof ModelsFile>;

/** A models file as read: its absolute path and its entries, in order. */
export interface LoadedModels {
  file: string;
  entries: ModelEntry[];
}

/** An entry's request parameters and engine settings: what it lays over agent.yaml's `llm:`. */
export function entryParameters(entry: ModelEntry): Record<string, unknown> {
  const { name: _name, model: _id, base_url: _url, api_key_env: _env, pricing: _price, ...parameters } = entry;
  return Object.fromEntries(Object.entries(parameters).filter(([, value]) => value !== undefined));
}

const EXAMPLE =
  'A models file lists one entry per model, e.g.\nmodels:\n  - name: small\n    model: gpt-4o-mini\n    base_url: https://api.openai.com/v1\n' +
  '    api_key_env: OPENAI_API_KEY_SMALL   # the NAME of the variable that holds the key\n    pricing: {input_per_million: 0.15, output_per_million: 0.6}\n    temperature: 0';

function hintFor(field: string): string | undefined {
  if (/\.pricing/.test(field)) {
    return 'pricing gives the prices per million tokens: input_per_million, output_per_million, and optionally cached_input_per_million and currency (USD by default).';
  }
  if (/\.base_url$/.test(field)) return 'base_url is the endpoint of an OpenAI-compatible server, e.g. http://localhost:8000/v1.';
  if (/\.extra_body/.test(field)) return 'extra_body maps server-specific parameters to their values, merged into the request as written.';
  if (/^models/.test(field) || field === '' || field === '(top level)') return EXAMPLE;
  return undefined;
}

/** Adds the entry's name to each problem about it, so the message says which model is wrong. */
function naming(problem: ConfigProblem, names: readonly unknown[]): ConfigProblem {
  const index = /^models\[(\d+)\]/.exec(problem.field)?.[1];
  const name = index === undefined ? undefined : names[Number(index)];
  return typeof name === 'string' && name.trim() !== '' ? { ...problem, message: `${problem.message} (model "${name.trim()}")` } : problem;
}

/** What is wrong across entries or in `api_key_env`, which zod cannot say without quoting the value. */
function entryProblems(file: string, entries: readonly ModelEntry[], locate: (path: PropertyKey[]) => object | undefined): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const at = (path: PropertyKey[]) => ({ file, ...locate(path), field: formatFieldPath(path) });
  for (const [index, entry] of entries.entries()) {
    if (entry.api_key_env !== undefined && !VARIABLE_NAME.test(entry.api_key_env)) {
      problems.push({
        ...at(['models', index, 'api_key_env']),
        message: `is not the name of an environment variable (letters, digits and _, not starting with a digit); it names the variable that holds the key, never the key itself`,
      });
    }
    const earlier = entries.slice(0, index).find((other) => modelDirectoryName(other.name) === modelDirectoryName(entry.name));
    if (earlier !== undefined) {
      problems.push({
        ...at(['models', index, 'name']),
        message:
          earlier.name === entry.name
            ? `"${entry.name}" names two entries; each model's name is its own`
            : `"${entry.name}" and "${earlier.name}" would share the directory "${modelDirectoryName(entry.name)}" under each task; give names that differ in more than / : or spaces`,
      });
    }
  }
  return problems;
}

/**
 * Reads and checks a models file. Every problem is a ConfigurationError (exit 2) naming the file, the
 * line, the field, the entry's model and the fix. Keys are not read here: an entry names its variable.
 */
export function readModelsFile(path: string): LoadedModels {
  const file = resolve(path);
  let names: unknown[] = [];
  try {
    const parsed = readYamlConfig(file, ModelsFile, {
      label: 'the models file',
      hintFor,
      edit: (document) => {
        const models = (document.toJS() as { models?: unknown } | null)?.models;
        names = Array.isArray(models) ? models.map((entry) => (entry as { name?: unknown } | null)?.name) : [];
      },
    });
    const problems = [
      ...parsed.warnings.map((warning) => ({ ...warning, message: `${warning.message}; a models file takes no other keys` })),
    ];
    problems.push(...entryProblems(file, parsed.data.models, (fieldPath) => parsed.locate(fieldPath)));
    if (problems.length > 0) throw new ConfigFileError(file, problems, EXAMPLE);
    return { file, entries: parsed.data.models };
  } catch (error) {
    if (error instanceof ConfigFileError) {
      throw new ConfigFileError(
        file,
        error.problems.map((problem) => naming(problem, names)),
        error.hint,
      );
    }
    if (DeltaError.isInstance(error) && error.code === 'CONFIG_MISSING') {
      throw new ConfigurationError(`The models file ${file} does not exist.`, {
        code: 'CONFIG_MISSING',
        file,
        hint: `Check the path given to --models, or create the file. ${EXAMPLE}`,
      });
    }
    throw error;
  }
}

/** The entry `--model NAME` picks from a models file (`delta run`); a file of one entry needs no `--model`. */
export function pickModelEntry(models: LoadedModels, name: string | undefined): ModelEntry {
  const names = models.entries.map((entry) => entry.name);
  if (name === undefined) {
    if (models.entries.length === 1) return models.entries[0]!;
    throw new ConfigurationError(`${models.file} has ${names.length} models; say which one this run uses.`, {
      code: 'USAGE',
      field: '--model',
      hint: `Pass --model NAME with one of: ${names.join(', ')}.`,
    });
  }
  const entry = models.entries.find((candidate) => candidate.name === name);
  if (entry === undefined) {
    throw new ConfigurationError(`--model ${name}: ${models.file} has no model named "${name}".`, {
      code: 'USAGE',
      field: '--model',
      hint: `With --models, --model names an entry of the file: ${names.join(', ')}.`,
    });
  }
  return entry;
}
