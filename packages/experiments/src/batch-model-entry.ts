import { ConfigurationError, ConfigurationErrors } from '@delta/errors';
import type { BatchDefinition, BatchModel } from './batch-definition.js';
import { modelDirectoryName } from './batch-layout.js';
import { type ModelEndpointOptions, modelEndpointOf, modelKeyOf, modelKeyVariables } from './model-entry.js';
import { entryParameters, type ModelEntry, readModelsFile } from './models-file.js';

/** A models file's entry as the batch records it in definition.json: its name, model, endpoint, key's variable, prices, parameters. */
export function batchModelOf(entry: ModelEntry): BatchModel {
  const params = entryParameters(entry);
  return {
    name: entry.name,
    directory: modelDirectoryName(entry.name),
    override: true,
    model: entry.model,
    ...(entry.base_url === undefined ? {} : { base_url: entry.base_url }),
    ...(entry.api_key_env === undefined ? {} : { api_key_env: entry.api_key_env }),
    ...(entry.pricing === undefined ? {} : { pricing: entry.pricing }),
    ...(Object.keys(params).length === 0 ? {} : { params }),
  };
}

/** The models file's entry a batch model was recorded from; undefined for a `--model` name or agent.yaml's model. */
export function modelEntryOf(model: BatchModel): ModelEntry | undefined {
  if (model.model === undefined) return undefined;
  return {
    ...(model.params ?? {}),
    name: model.name,
    model: model.model,
    ...(model.base_url === undefined ? {} : { base_url: model.base_url }),
    ...(model.api_key_env === undefined ? {} : { api_key_env: model.api_key_env }),
    ...(model.pricing === undefined ? {} : { pricing: model.pricing }),
  } as ModelEntry;
}

/**
 * What one model's runs get from the engine's options, besides the batch's own: its entry's endpoint and
 * key (read here, in the process that runs it), and the variables of every key of the batch's models file,
 * so that no run records or hands a tool another model's key either.
 */
export function modelRunOptions(
  definition: Pick<BatchDefinition, 'models' | 'models_file'>,
  name: string,
  environment: NodeJS.ProcessEnv,
): ModelEndpointOptions & { secretVariables?: string[] } {
  const entries = definition.models.map(modelEntryOf).filter((entry): entry is ModelEntry => entry !== undefined);
  const entry = entries.find((candidate) => candidate.name === name);
  if (entry === undefined) return {};
  const secretVariables = batchKeyVariables(definition);
  return { ...modelEndpointOf(entry, environment, definition.models_file), ...(secretVariables.length > 0 ? { secretVariables } : {}) };
}

const fileVariables = new Map<string, string[]>();

/**
 * The key variables of every entry of the batch's models file, not only of the models the batch runs (a
 * judge's, a model left out with --model): each is kept from tools and graders and redacted everywhere. The
 * file is read once per process; where it cannot be read (a worker that does not see it), the batch's own.
 */
export function batchKeyVariables(definition: Pick<BatchDefinition, 'models' | 'models_file'>): string[] {
  const own = modelKeyVariables(definition.models.map(modelEntryOf).filter((entry): entry is ModelEntry => entry !== undefined));
  const file = definition.models_file;
  if (file === undefined) return own;
  if (!fileVariables.has(file)) {
    try {
      fileVariables.set(file, modelKeyVariables(readModelsFile(file).entries));
    } catch {
      fileVariables.set(file, []);
    }
  }
  return [...new Set([...own, ...fileVariables.get(file)!])];
}

/** Checks, before any run starts, that every model's key variable is set: the first one missing is an error naming it. */
export function checkModelKeys(definition: Pick<BatchDefinition, 'models' | 'models_file'>, environment: NodeJS.ProcessEnv): void {
  // Every model whose key is missing at once, not one per attempt.
  const problems = new Map<string, ConfigurationError>();
  for (const model of definition.models) {
    const entry = modelEntryOf(model);
    if (entry === undefined) continue;
    try {
      modelKeyOf(entry, environment, definition.models_file);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      problems.set(entry.api_key_env ?? entry.name, error);
    }
  }
  const errors = [...problems.values()];
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new ConfigurationErrors(`The models file ${definition.models_file ?? ''}`.trim(), errors);
}
