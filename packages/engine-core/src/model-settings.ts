import { dirname, join } from 'node:path';
import type { ModelEndpoint } from '@delta/journal';
import { ConfigurationError } from '@delta/errors';
import { readDotenv } from './dotenv.js';
import { findProjectRoot } from './project-root.js';

/** Where a setting came from: a `.env` file's path, or `environment`. */
export type SettingSource = string;

export interface ModelSettings {
  /** Undefined when no key is set and a base URL is: local servers often need none, and none is sent. */
  apiKey: string | undefined;
  apiKeySource: SettingSource | undefined;
  /** The environment variable that held the key, e.g. DELTA_API_KEY. */
  apiKeyName: string | undefined;
  baseUrl: string | undefined;
  baseUrlSource: SettingSource | undefined;
}

const KEY_NAMES = ['DELTA_API_KEY', 'OPENAI_API_KEY'];
const BASE_URL_NAMES = ['DELTA_BASE_URL', 'OPENAI_BASE_URL', 'OPENAI_API_URL'];
/**
 * Kept out of tools' environments: the key, and the endpoint too, so that a sub-agent a tool starts
 * without pass_model_credentials gets neither and says so (resolveModelSettings), rather than calling
 * the parent's endpoint with no key and failing on a 401.
 */
export const CREDENTIAL_NAMES: readonly string[] = [...KEY_NAMES, ...BASE_URL_NAMES];

export interface SettingLayersOptions {
  /** Leave the workspace `.env` out: a run's tools wrote it (see judgeWorkspaceEnv). */
  skipWorkspaceEnv?: boolean;
  /** Told when a `.env` is not read (a FIFO, a device, a link out of its directory, too large). */
  onWarning?: (message: string) => void;
  /** The workspace `.env`'s values as judged (judgeWorkspaceEnv), used instead of reading the file again. */
  workspaceEnvValues?: Record<string, string>;
}

/**
 * The `.env` files in priority order (spec README resolution 9): the workspace, the agent, the project
 * root (the nearest directory above the agent holding `.git`), then the process environment. Each file
 * is read as hostile input (readDotenv): a tool can write the workspace's.
 */
export function settingLayers(
  workDir: string,
  agentHome: string,
  environment: NodeJS.ProcessEnv,
  options: SettingLayersOptions = {},
): Array<{ source: string; values: Record<string, string | undefined> }> {
  const layers: Array<{ source: string; values: Record<string, string | undefined> }> = [];
  const workspaceEnv = join(workDir, '.env');
  const files = [workspaceEnv, join(agentHome, '.env')];
  const root = findProjectRoot(agentHome);
  if (root) files.push(join(root, '.env'));
  for (const file of [...new Set(files)]) {
    if (file === workspaceEnv && options.skipWorkspaceEnv) continue;
    if (file === workspaceEnv && options.workspaceEnvValues !== undefined) {
      layers.push({ source: file, values: options.workspaceEnvValues });
      continue;
    }
    const values = readDotenv(file, {
      allowedRoots: file === workspaceEnv ? [workDir, agentHome] : [dirname(file)],
      onRefused: (message) => options.onWarning?.(message),
    });
    if (values) layers.push({ source: file, values });
  }
  layers.push({ source: 'environment', values: environment });
  return layers;
}

function lookup(layers: ReturnType<typeof settingLayers>, names: readonly string[]) {
  for (const layer of layers) {
    for (const name of names) {
      const value = layer.values[name];
      if (value !== undefined && value.trim() !== '') return { value: value.trim(), source: layer.source, name };
    }
  }
  return undefined;
}

export interface ModelSettingsOptions {
  /** The caller's base URL (`--base-url`): wins over the recorded endpoint, the files and the environment. */
  baseUrl?: string | undefined;
  /**
   * The endpoint a run started with (`delta continue`, a batch resume): its base URL wins over every `.env`
   * (the environment, which no tool can write, may still name another), and its key is taken from the
   * recorded variable and source while they hold it.
   */
  recorded?: ModelEndpoint | undefined;
  /** Leave the workspace `.env` out (a run's tools wrote it). */
  skipWorkspaceEnv?: boolean;
  /** The workspace `.env`'s values as judged, instead of reading the file again. */
  workspaceEnvValues?: Record<string, string>;
  /**
   * The key the caller gives (a models file's entry, read from its variable `name`): used as it is, and
   * the base URL is then found as for any run (the option, the recorded one, the `.env` files, the environment).
   */
  apiKey?: { value: string; name?: string | undefined } | undefined;
  /** Told what is not obeyed, and why. */
  onWarning?: (message: string) => void;
}

type Found = { value: string; source: string; name: string };

function recordedKey(layers: ReturnType<typeof settingLayers>, recorded: ModelEndpoint | undefined): Found | undefined {
  if (!recorded?.api_key_name || !recorded.api_key_source) return undefined;
  const value = layers.find((layer) => layer.source === recorded.api_key_source)?.values[recorded.api_key_name];
  return value !== undefined && value.trim() !== ''
    ? { value: value.trim(), source: recorded.api_key_source, name: recorded.api_key_name }
    : undefined;
}

/**
 * The base URL of a resumed run: the recorded one, unless the process environment (the user's: no tool can
 * change it) now names another. A `.env` that names another is ignored, with a warning: a tool may have written it.
 */
function recordedBaseUrl(
  layers: ReturnType<typeof settingLayers>,
  recorded: ModelEndpoint,
  onWarning: ((message: string) => void) | undefined,
): Found | undefined {
  const started = recorded.base_url ?? 'the default OpenAI base URL';
  const fromEnvironment = lookup(
    layers.filter((layer) => layer.source === 'environment'),
    BASE_URL_NAMES,
  );
  const chosen = fromEnvironment !== undefined && fromEnvironment.value !== recorded.base_url ? fromEnvironment : undefined;
  const fromFile = lookup(
    layers.filter((layer) => layer.source !== 'environment'),
    BASE_URL_NAMES,
  );
  if (fromFile !== undefined && fromFile.value !== recorded.base_url && fromFile.value !== chosen?.value) {
    onWarning?.(
      `${fromFile.source} now sets ${fromFile.name}=${fromFile.value}, but this run started with ${started}; ` +
        'a .env that changed after a run started does not redirect it (a tool may have written it), so it is ignored. ' +
        'Pass --base-url (or set the variable in the environment) to send this run elsewhere.',
    );
  }
  if (chosen !== undefined) {
    onWarning?.(`this run started with ${started}; the environment's ${chosen.name} now names ${chosen.value}, so it continues there.`);
    return chosen;
  }
  return recorded.base_url === null ? undefined : { value: recorded.base_url, source: 'recorded', name: 'base_url' };
}

/**
 * Finds the API key and base URL, after loading the `.env` files. A base URL without a key is fine (Ollama,
 * LM Studio and vLLM usually want none): the key is then undefined and no key is sent. `baseUrl` given by
 * the caller wins over everything; a run's recorded endpoint wins over the files and the environment.
 */
export function resolveModelSettings(
  workDir: string,
  agentHome: string,
  environment: NodeJS.ProcessEnv = process.env,
  explicit: ModelSettingsOptions = {},
): ModelSettings {
  const layers = settingLayers(workDir, agentHome, environment, {
    ...(explicit.skipWorkspaceEnv ? { skipWorkspaceEnv: true } : {}),
    ...(explicit.onWarning ? { onWarning: explicit.onWarning } : {}),
    ...(explicit.workspaceEnvValues ? { workspaceEnvValues: explicit.workspaceEnvValues } : {}),
  });
  const given = explicit.apiKey;
  const key: Found | undefined =
    given !== undefined
      ? { value: given.value, source: given.name === undefined ? 'option' : 'environment', name: given.name ?? '' }
      : (recordedKey(layers, explicit.recorded) ?? lookup(layers, KEY_NAMES));
  const recorded = explicit.recorded;
  const baseUrl =
    explicit.baseUrl !== undefined
      ? { value: explicit.baseUrl, source: 'option' }
      : recorded !== undefined
        ? recordedBaseUrl(layers, recorded, explicit.onWarning)
        : lookup(layers, BASE_URL_NAMES);
  if (!key && !baseUrl && environment.DELTA_RUN_ID) {
    // The engine sets DELTA_RUN_ID for its tools: this delta is a sub-agent a tool started, and tools get no key by default.
    throw new ConfigurationError(
      `No API key for the model: this delta was started by a tool of run ${environment.DELTA_RUN_ID}, and tools do not receive the model key unless their definition allows it.`,
      {
        code: 'API_KEY_MISSING',
        hint:
          `Add pass_model_credentials: true to the tool that starts this sub-agent, in the agent ${environment.DELTA_AGENT_HOME ?? 'that started it'} (docs/tools.md, "Model credentials").\n` +
          'Or give the sub-agent its own key: a .env file with DELTA_API_KEY in its workspace or agent directory.',
      },
    );
  }
  if (!key && !baseUrl) {
    throw new ConfigurationError('No API key for the model: DELTA_API_KEY (or OPENAI_API_KEY) is missing or empty.', {
      code: 'API_KEY_MISSING',
      hint:
        'Set DELTA_API_KEY in the environment, or in a .env file in the workspace, the agent directory or the project root.\n' +
        'For an OpenAI-compatible server, set DELTA_BASE_URL instead (e.g. http://localhost:11434/v1); a key is then needed only if the server asks for one.',
    });
  }
  return {
    apiKey: key?.value,
    apiKeySource: key?.source,
    apiKeyName: key?.name || undefined,
    baseUrl: baseUrl?.value,
    baseUrlSource: baseUrl?.source,
  };
}

/**
 * One line for `-v`: which variable and file supplied the key, and the base URL with its source.
 * Never the key itself.
 */
export function describeModelSettings(settings: ModelSettings): string {
  const describeSource = (source: string | undefined) =>
    source === 'environment'
      ? 'the process environment'
      : source === 'option'
        ? 'the baseUrl option'
        : source === 'recorded'
          ? "the run's start (metadata.json model_endpoint)"
          : source;
  const key =
    settings.apiKey === undefined
      ? 'none (neither DELTA_API_KEY nor OPENAI_API_KEY is set, so no key is sent)'
      : settings.apiKeyName === undefined
        ? 'given by the caller (the apiKey option)'
        : `${settings.apiKeyName} from ${describeSource(settings.apiKeySource)}`;
  const baseUrl =
    settings.baseUrl === undefined
      ? 'the default OpenAI base URL'
      : `base URL ${settings.baseUrl} from ${describeSource(settings.baseUrlSource)}`;
  return `API key: ${key}; ${baseUrl}`;
}
