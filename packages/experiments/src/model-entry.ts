import { type ConfigOverride, type LoadedAgent, LlmConfig, type ModelClientOptions } from '@delta/engine';
import { ConfigurationError, formatFieldPath } from '@delta/errors';
import { entryParameters, type ModelEntry } from './models-file.js';

/** Where a model's requests go and the key they carry, for the engine (`startRun`, `continueRun`). */
export interface ModelEndpointOptions {
  baseUrl?: string;
  apiKey?: string;
  /** The variable the key came from, recorded in metadata.json (never the key). */
  apiKeyName?: string;
}

/**
 * The key of an entry, read from its `api_key_env` in `environment`; undefined when it names none. A
 * variable that is missing or empty is a ConfigurationError naming the model and the variable.
 */
export function modelKeyOf(entry: ModelEntry, environment: NodeJS.ProcessEnv, file = 'the models file'): string | undefined {
  if (entry.api_key_env === undefined) return undefined;
  const value = environment[entry.api_key_env]?.trim();
  if (value === undefined || value === '') {
    throw new ConfigurationError(
      `The model "${entry.name}" of ${file} reads its key from the environment variable ${entry.api_key_env}, which is ${value === undefined ? 'not set' : 'empty'}.`,
      {
        code: 'API_KEY_MISSING',
        file,
        field: `${entry.name}.api_key_env`,
        hint: `Set ${entry.api_key_env} in the environment of this command (and of every delta worker that runs the batch), or change api_key_env of "${entry.name}" in ${file}.`,
      },
    );
  }
  return value;
}

/**
 * An entry's endpoint for the engine: its base URL, and its key read from its variable. An entry without
 * `api_key_env` leaves the key to the usual settings (DELTA_API_KEY, `.env`), as `delta run` finds it.
 */
export function modelEndpointOf(entry: ModelEntry, environment: NodeJS.ProcessEnv, file?: string): ModelEndpointOptions {
  const apiKey = modelKeyOf(entry, environment, file);
  return {
    ...(entry.base_url === undefined ? {} : { baseUrl: entry.base_url }),
    ...(apiKey === undefined ? {} : { apiKey, apiKeyName: entry.api_key_env! }),
  };
}

/**
 * The options of a model client (`createModelClient` of @delta/engine) for one entry alone, without an
 * agent: a judge model a grader calls, say. Its key comes from `api_key_env` (none is sent without one).
 */
export function modelClientOptionsOf(entry: ModelEntry, environment: NodeJS.ProcessEnv, file?: string): ModelClientOptions {
  return {
    apiKey: modelKeyOf(entry, environment, file),
    ...(entry.base_url === undefined ? {} : { baseUrl: entry.base_url }),
    ...(entry.max_retries === undefined ? {} : { maxRetries: entry.max_retries }),
    ...(entry.timeout_ms === undefined ? {} : { timeoutMs: entry.timeout_ms }),
    ...(entry.attempt_timeout_ms === undefined ? {} : { attemptTimeoutMs: entry.attempt_timeout_ms }),
    ...(entry.max_response_bytes === undefined ? {} : { maxResponseBytes: entry.max_response_bytes }),
  };
}

/** The variables a models file's entries read their keys from: what each of its runs keeps from tools and redacts. */
export function modelKeyVariables(entries: readonly ModelEntry[]): string[] {
  return [...new Set(entries.flatMap((entry) => (entry.api_key_env === undefined ? [] : [entry.api_key_env])))];
}

/**
 * The agent as one model of a models file runs it: agent.yaml's `llm:` with the entry's model, its
 * parameters laid over (its `extra_body` merged over agent.yaml's), and its pricing alone: agent.yaml's
 * prices are for agent.yaml's model, so an entry without pricing runs unpriced. Checked as `llm:` is.
 */
export function agentForModel(agent: LoadedAgent, entry: ModelEntry, file = 'the models file'): LoadedAgent {
  const { pricing: _agentPricing, ...agentLlm } = agent.config.llm;
  const parameters = entryParameters(entry);
  const extraBody =
    agentLlm.extra_body === undefined && entry.extra_body === undefined ? undefined : { ...agentLlm.extra_body, ...entry.extra_body };
  const merged = {
    ...agentLlm,
    ...parameters,
    model: entry.model,
    ...(extraBody === undefined ? {} : { extra_body: extraBody }),
    ...(entry.pricing === undefined ? {} : { pricing: entry.pricing }),
  };
  const checked = LlmConfig.safeParse(merged);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new ConfigurationError(
      `The model "${entry.name}" of ${file} does not fit ${agent.configFile}: llm.${formatFieldPath(issue.path)}: ${issue.message}.`,
      {
        code: 'CONFIG_INVALID',
        file,
        field: `${entry.name}.${formatFieldPath(issue.path)}`,
        hint: `An entry's fields are laid over agent.yaml's llm: for its runs; set the field in one place only (the entry, or agent.yaml).`,
      },
    );
  }
  return { ...agent, config: { ...agent.config, llm: checked.data }, overrides: withEntryOverrides(agent, merged) };
}

/**
 * The agent's overrides with the entry's as `--model` and `--set llm.KEY=JSON`: ENGINE_START records them,
 * and a replay or fork loads the agent with them again, so it sends what the run sent.
 */
function withEntryOverrides(agent: LoadedAgent, llm: Record<string, unknown>): ConfigOverride[] {
  const entry: ConfigOverride[] = [];
  for (const [key, value] of Object.entries(llm)) {
    if (value === undefined || JSON.stringify(value) === JSON.stringify((agent.config.llm as Record<string, unknown>)[key])) continue;
    const source = key === 'model' ? `--model ${String(value)}` : `--set llm.${key}=${JSON.stringify(value)}`;
    entry.push({ path: ['llm', key], value, source });
  }
  const given = new Set(entry.map((override) => override.source));
  return [...agent.overrides.filter((override) => !given.has(override.source)), ...entry];
}
