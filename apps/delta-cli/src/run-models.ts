import type { ConfigOverrides, LoadedAgent } from '@delta/engine';
import { configOverrides, type OverrideFlags } from './override-flags.js';

export interface ModelsFlags extends OverrideFlags {
  models?: string;
}

/** What `delta run --models FILE [--model NAME]` gives the engine for the entry it picks. */
export interface RunModel {
  /** Applied to the loaded agent: the entry's model, parameters and prices over agent.yaml's `llm:`. */
  apply: (agent: LoadedAgent) => LoadedAgent;
  /** The entry's base URL and key (read from its variable), and the variables of every key of the file. */
  engine: { baseUrl?: string; apiKey?: string; apiKeyName?: string; secretVariables?: string[] };
}

/** The agent's overrides (`--set`; `--model` names the entry with --models, so it is not one). */
export function runOverrides(flags: ModelsFlags): ConfigOverrides {
  return configOverrides(flags.models === undefined ? flags : { ...flags, model: undefined });
}

/**
 * `--models FILE` with `--model NAME` (or a file of one entry): the entry, with its key read from its
 * variable now, before anything of the run is written.
 */
export async function runModelOf(flags: ModelsFlags, environment: NodeJS.ProcessEnv): Promise<RunModel | undefined> {
  if (flags.models === undefined) return undefined;
  const { agentForModel, modelEndpointOf, modelKeyVariables, pickModelEntry, readModelsFile } = await import('@delta/experiments');
  const models = readModelsFile(String(flags.models));
  const entry = pickModelEntry(models, flags.model === undefined ? undefined : String(flags.model));
  const secretVariables = modelKeyVariables(models.entries);
  return {
    apply: (agent) => agentForModel(agent, entry, models.file),
    engine: { ...modelEndpointOf(entry, environment, models.file), ...(secretVariables.length > 0 ? { secretVariables } : {}) },
  };
}
