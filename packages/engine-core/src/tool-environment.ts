import { CREDENTIAL_NAMES } from './model-settings.js';

/**
 * The environment tools, hooks and generators run with: the engine's own, less the model credentials
 * (by name, and any variable holding the key's value), plus the run's variables.
 */
export function toolEnvironment(
  base: NodeJS.ProcessEnv,
  apiKey: string | undefined,
  extra: Record<string, string>,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || CREDENTIAL_NAMES.includes(name)) continue;
    if (apiKey !== undefined && apiKey !== '' && value.includes(apiKey)) continue;
    environment[name] = value;
  }
  return { ...environment, ...extra };
}
