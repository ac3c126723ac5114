import { CORE_NAMES, matchesNamePattern, NEVER_PASSED_NAMES, unexportableReason } from './environment-names.js';
import { fillSetVariables, type SandboxEnvConfig } from './sandbox-env-config.js';

/**
 * Whether `value` holds a secret: one of 8 characters or more anywhere in it (as redaction finds it), a
 * shorter one (a short queue password) only as the whole value, so that it does not take every variable
 * with a common letter pair with it.
 */
export function holdsSecret(value: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => secret !== '' && (secret.length >= 8 ? value.includes(secret) : value === secret));
}

/** What ENGINE_START records of a run's tool environment: names only, never a value. */
export interface EnvironmentRecord {
  inherit: 'core' | 'all' | 'none';
  /** Every variable the tools get, the engine's own included, sorted. */
  names: string[];
  /** Variables that matched `inherit`, `pass` or `set` but were kept back: a credential, DELTA_QUEUE, or a value holding a secret. */
  withheld: string[];
}

export interface ToolEnvironmentOptions {
  /** agent.yaml's `sandbox.env`; without it, the core (`inherit: core`). */
  policy?: SandboxEnvConfig | undefined;
  /** Values no variable a tool gets may hold: the model keys, MCP credentials, the queue's address, ... */
  secrets?: readonly string[];
  /** The engine's own variables (the run's, the caller's `toolEnv`): added last, as they are. */
  engine?: Record<string, string>;
  /** What `${AGENT_HOME}` and `${CWD}` stand for in `set:` values. */
  paths?: { agentHome: string; workDir: string };
  /**
   * An image's environment (its config's Env): under an image it is the tools' own, over what comes from
   * the user's (whose PATH and HOME are this machine's, not the image's); `pass` and `set` still win.
   */
  imageEnv?: Record<string, string>;
}

export interface ToolEnvironment {
  environment: Record<string, string>;
  record: EnvironmentRecord;
  /** For a person, once per run (and by `delta tool expand`): what was asked for and not given, `inherit: all`. */
  warnings: string[];
}

function sortedUnique(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

/**
 * The environment of tools, stdio MCP servers and command graders: an allow-list from the user's
 * environment (`base`) by agent.yaml's `sandbox.env` (inherit core, all or none; pass; set), then the
 * engine's variables. Never a model credential by name, DELTA_QUEUE, or a variable whose value holds one
 * of `secrets`, whatever the policy says; nor a name bash cannot export (the sandbox's launcher is bash).
 */
export function toolEnvironment(base: NodeJS.ProcessEnv, options: ToolEnvironmentOptions = {}): ToolEnvironment {
  const policy = options.policy ?? {};
  const inherit = policy.inherit ?? 'core';
  const secrets = options.secrets ?? [];
  const selectors = [...(inherit === 'all' ? ['*'] : inherit === 'core' ? CORE_NAMES : []), ...(policy.pass ?? [])];
  const chosen: Record<string, string> = {};
  const withheld: string[] = [];
  const unexportable: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || !selectors.some((selector) => matchesNamePattern(name, selector))) continue;
    if (NEVER_PASSED_NAMES.includes(name) || holdsSecret(value, secrets)) withheld.push(name);
    else if (unexportableReason(name) !== undefined) unexportable.push(name);
    else chosen[name] = value;
  }
  const warnings: string[] = [];
  for (const [name, text] of Object.entries(policy.set ?? {})) {
    const value = options.paths ? fillSetVariables(text, { AGENT_HOME: options.paths.agentHome, CWD: options.paths.workDir }) : text;
    if (holdsSecret(value, secrets)) {
      withheld.push(name);
      warnings.push(
        `sandbox.env.set.${name} is not given to tools: its value holds a secret (a model key, an MCP credential, the queue's address)`,
      );
    } else chosen[name] = value;
  }
  for (const name of policy.pass ?? []) {
    if (withheld.includes(name) && !(name in chosen)) {
      warnings.push(
        `sandbox.env.pass names ${name}, which is not given to tools: ${NEVER_PASSED_NAMES.includes(name) ? 'it is a model credential or DELTA_QUEUE' : "its value holds a secret (a model key, an MCP credential, the queue's address)"}`,
      );
    }
  }
  if (unexportable.length > 0) {
    warnings.push(`not given to tools, as the sandbox's shell cannot export them as they are: ${sortedUnique(unexportable).join(', ')}`);
  }
  if (inherit === 'all') {
    warnings.push(
      'sandbox.env.inherit: all gives tools your whole environment (tokens and passwords included), less the model credentials, DELTA_QUEUE and any variable holding a secret; list what they need in sandbox.env.pass instead',
    );
  }
  const fromImage = options.imageEnv === undefined ? {} : imageBase(options.imageEnv, chosen, policy);
  const environment = { ...chosen, ...fromImage, ...options.engine };
  return { environment, record: { inherit, names: sortedUnique(Object.keys(environment)), withheld: sortedUnique(withheld) }, warnings };
}

/** Under an image: its Env, and a HOME of its own unless it gives one; what `pass` or `set` named keeps its value. */
function imageBase(imageEnv: Record<string, string>, chosen: Record<string, string>, policy: SandboxEnvConfig): Record<string, string> {
  const named = (name: string) => (policy.pass ?? []).some((pattern) => matchesNamePattern(name, pattern)) || name in (policy.set ?? {});
  const base: Record<string, string> = { HOME: '/root', ...imageEnv };
  for (const name of ['PATH', 'HOME']) if (!named(name)) delete chosen[name];
  for (const name of Object.keys(base)) if (named(name) && name in chosen) delete base[name];
  return base;
}

/**
 * The environment of hooks and `computed_file` generators, the user's own code: the user's whole
 * environment, less what no process of a run gets (the model credentials by name, DELTA_QUEUE, a value
 * holding a secret), then the engine's variables.
 */
export function userEnvironment(
  base: NodeJS.ProcessEnv,
  options: Pick<ToolEnvironmentOptions, 'secrets' | 'engine'> = {},
): Record<string, string> {
  const secrets = options.secrets ?? [];
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || NEVER_PASSED_NAMES.includes(name) || holdsSecret(value, secrets)) continue;
    environment[name] = value;
  }
  return { ...environment, ...options.engine };
}
