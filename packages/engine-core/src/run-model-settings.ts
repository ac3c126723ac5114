import type { ModelEndpoint } from '@delta/journal';
import { type ModelSettings, resolveModelSettings } from './model-settings.js';
import { judgeWorkspaceEnv, type WorkspaceEnvTrust } from './workspace-env-trust.js';

/** What a run is given about its model's endpoint and key, besides the `.env` files and the environment. */
export interface RunModelSettingsOptions {
  /** The environment the settings are looked up in (default `process.env`). */
  environment?: NodeJS.ProcessEnv | undefined;
  /** `--base-url`: wins over everything. */
  baseUrl?: string | undefined;
  /** A key the caller gives (a models file's entry); the base URL is still found as for any run. */
  apiKey?: string | undefined;
  /** The variable that key was read from, e.g. the entry's `api_key_env`. */
  apiKeyName?: string | undefined;
  /** A resumed run's recorded endpoint. */
  recorded?: ModelEndpoint | undefined;
  onWarning?: (message: string) => void;
}

/**
 * The key and base URL a run in `workDir` uses, found as the engine finds them when the run starts: the
 * caller's (`baseUrl`, `apiKey`), the recorded endpoint, then the `.env` files (the workspace's left out when
 * a run's tools wrote it, see judgeWorkspaceEnv), the agent's and the project root's, then the environment.
 * What `delta run -v` prints.
 */
export function runModelSettings(
  workDir: string,
  agentHome: string,
  options: RunModelSettingsOptions = {},
  envTrust: WorkspaceEnvTrust = judgeWorkspaceEnv(workDir),
): ModelSettings {
  return resolveModelSettings(workDir, agentHome, options.environment ?? process.env, {
    baseUrl: options.baseUrl,
    recorded: options.recorded,
    skipWorkspaceEnv: envTrust.distrusted !== undefined,
    ...(envTrust.values === undefined ? {} : { workspaceEnvValues: envTrust.values }),
    ...(options.apiKey === undefined ? {} : { apiKey: { value: options.apiKey, name: options.apiKeyName } }),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
}
