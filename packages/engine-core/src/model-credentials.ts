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
