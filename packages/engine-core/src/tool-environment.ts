import { CREDENTIAL_NAMES } from './model-settings.js';

/**
 * The environment tools, hooks and generators run with: the engine's own, less the model credentials
 * (by name, and any variable holding a key's value), plus the run's variables.
 */
export function toolEnvironment(
  base: NodeJS.ProcessEnv,
  keys: string | undefined | readonly string[],
  extra: Record<string, string>,
): Record<string, string> {
  // The run's key, or every model key the engine knows of (a models file's): none reaches a tool.
  const secrets = (typeof keys === 'string' ? [keys] : (keys ?? [])).filter((key) => key !== '');
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || CREDENTIAL_NAMES.includes(name)) continue;
    if (secrets.some((key) => value.includes(key))) continue;
    environment[name] = value;
  }
  return { ...environment, ...extra };
}

/**
 * The credentials a tool that declares `pass_model_credentials: true` receives: the engine's API key as
 * DELTA_API_KEY and, when known, its base URL as DELTA_BASE_URL (what `delta run` itself reads).
 */
export function modelCredentials(apiKey: string | undefined, baseUrl: string | undefined): Record<string, string> {
  const credentials: Record<string, string> = {};
  if (apiKey !== undefined && apiKey !== '') credentials.DELTA_API_KEY = apiKey;
  if (baseUrl !== undefined && baseUrl !== '') credentials.DELTA_BASE_URL = baseUrl;
  return credentials;
}

/** One tool's environment: the shared one, plus the credentials only when the tool opted in. */
export function environmentForTool(env: Record<string, string>, credentials: Record<string, string> | undefined): Record<string, string> {
  return credentials === undefined ? env : { ...env, ...credentials };
}
