import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { BUBBLEWRAP_INSTALL, probeBubblewrap, type RunSandbox, type SandboxMode, type SandboxPolicy } from '@delta/command-runner';
import { sandboxLimitsOf, type SandboxLimitsConfig } from './sandbox-limits-config.js';
import type { ImageRecord } from './prepare-image.js';
import { ConfigurationError } from '@delta/errors';
import type { LoadedAgent } from './load-agent.js';

/** The sandbox asked for on the command line (`--sandbox MODE`, `--no-network`), over agent.yaml's `sandbox:`. */
export interface SandboxOptions {
  mode?: SandboxMode;
  /** false: no network for tools (`--no-network`). */
  network?: boolean;
  /** Limits over agent.yaml's `sandbox.limits`, each one given winning (a task's, `--limit`). */
  limits?: SandboxLimitsConfig;
  /** An image over agent.yaml's `sandbox.image` (a task's, `--image`), and where the workspace is in it. */
  image?: string;
  workdir?: string;
  /** The image a run recorded (replay, fork): the image must be that one. */
  imageDigest?: string;
  /** The cache of unpacked images (default ~/.cache/delta/images). */
  imageCache?: string;
}

/** What ENGINE_START records: the sandbox in force for this engine's tool calls. */
export interface SandboxRecord {
  mode: SandboxMode;
  network: boolean;
  /** Why there is none although one was wanted (bubblewrap is missing). */
  note?: string;
  /** The limits asked for, how each is held (`enforced`: by what) or why it is not (`unenforced`). */
  limits?: {
    memory_bytes?: number;
    processes?: number;
    cpus?: number;
    layer_bytes?: number;
    enforced?: Record<string, string>;
    unenforced?: Record<string, string>;
  };
  /** The image that is the tools' root (prepare-image.ts): as named, its digest, its root's chain id, the workdir and user. */
  image?: ImageRecord;
}

export interface SandboxChoice {
  /** The policy to start a sandbox with, and the bubblewrap that runs it; none when tools run unsandboxed. */
  policy?: SandboxPolicy;
  bubblewrap?: string;
  record: SandboxRecord;
  /** One line for a person: which sandbox is in force. */
  description: string;
  /** Said once when the default sandbox cannot be had and tools run without one. */
  warning?: string;
  /**
   * The directories under /tmp the policy shows only because the tools' PATH has programs there: a run in
   * an image, whose tools cannot run this machine's programs, does not show them (prepare-image.ts).
   */
  toolPrograms?: string[];
}

const DEFAULT_MODE: SandboxMode = 'workspace-write';

function limitsRecord(config: SandboxLimitsConfig): NonNullable<SandboxRecord['limits']> {
  return {
    ...(config.memory === undefined ? {} : { memory_bytes: config.memory }),
    ...(config.processes === undefined ? {} : { processes: config.processes }),
    ...(config.cpus === undefined ? {} : { cpus: config.cpus }),
    ...(config.layer === undefined ? {} : { layer_bytes: config.layer }),
  };
}

/** How to have limits held that cannot be here. */
export const UNENFORCED_HINT =
  'For memory, processes and cpus: run as root, or in a cgroup delegated to you (systemd-run --user --scope -p Delegate=yes ...); a layer limit needs a run in an image.';

/** The names of a limit in records and messages, by command-runner's names. */
export const LIMIT_NAMES = { memoryBytes: 'memory', processes: 'processes', cpus: 'cpus', layerBytes: 'layer' } as const;

/**
 * The sandbox's record with how its limits are held, once the sandbox has made its cgroups; and the warning,
 * said once at the run's start, for each limit that cannot be held here (never dropped silently).
 */
export function recordLimits(record: SandboxRecord, sandbox: RunSandbox | undefined): { record: SandboxRecord; warning?: string } {
  const enforcement = sandbox?.limits.enforcement;
  if (record.limits === undefined || enforcement === undefined) return { record };
  const enforced = Object.fromEntries(enforcement.enforced.map((entry) => [LIMIT_NAMES[entry.limit], entry.by]));
  const unenforced = Object.fromEntries(enforcement.unenforced.map((entry) => [LIMIT_NAMES[entry.limit], entry.reason]));
  const limits = { ...record.limits, enforced, ...(Object.keys(unenforced).length > 0 ? { unenforced } : {}) };
  const warning =
    Object.keys(unenforced).length === 0
      ? undefined
      : `warning: these limits are NOT enforced for this run: ${Object.entries(unenforced)
          .map(([name, why]) => `${name} (${why})`)
          .join('; ')}. ${UNENFORCED_HINT}`;
  return { record: { ...record, limits }, ...(warning ? { warning } : {}) };
}

/** `path` with its symbolic links resolved, or as it is where it cannot be. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether `path` is `outer` or lies under it (both absolute). */
function isWithin(path: string, outer: string): boolean {
  const rest = relative(outer, path);
  return rest === '' || (rest !== '..' && !rest.startsWith('../') && !isAbsolute(rest));
}

/**
 * The sandbox's /tmp is private, which would hide the programs the tools are given on their PATH when
 * they live under /tmp (a clone of Delta there, whose bin/delta a sub-agent tool runs). The top directory
 * under /tmp of each such PATH entry stays visible, read-only (the agent's directory aside: it is shown anyway).
 */
function programsUnderTmp(path: string | undefined, agentHome: string): string[] {
  const found = new Set<string>();
  for (const entry of (path ?? '').split(':')) {
    if (!entry.startsWith('/tmp/')) continue;
    const top = join('/tmp', entry.slice('/tmp/'.length).split('/')[0]!);
    if (top !== '/tmp' && top !== agentHome && existsSync(top)) found.add(top);
  }
  return [...found];
}

/**
 * Decides the run's sandbox: `--sandbox` over agent.yaml's `sandbox.mode` over the default,
 * workspace-write with the network on. Without a working bubblewrap, the default falls back to none with a
 * warning; a mode set explicitly is a configuration error naming the install command.
 */
export function chooseSandbox(
  agent: LoadedAgent,
  workDir: string,
  options: SandboxOptions = {},
  environment: NodeJS.ProcessEnv = process.env,
  toolEnv: Record<string, string> = {},
): SandboxChoice {
  const configured = agent.config.sandbox;
  const explicitMode = options.mode ?? configured?.mode;
  const mode = explicitMode ?? DEFAULT_MODE;
  const network = options.network === false ? false : (configured?.network ?? true);
  const networkText = network ? 'network on' : 'network off';
  if (mode === 'off') {
    return { record: { mode, network: true }, description: 'sandbox: off (tools run with all of your rights)' };
  }
  const enclosing = environment.DELTA_SANDBOX;
  if (explicitMode === undefined && enclosing !== undefined && enclosing !== '') {
    // Started by a sandboxed tool (a sub-agent): bubblewrap cannot nest here, and need not; its tools run
    // in the sandbox this engine runs in.
    return {
      record: { mode: 'off', network, note: `inside the ${enclosing} sandbox of the run whose tool started this engine` },
      description: `sandbox: the enclosing run's (${enclosing}; this engine was started by a sandboxed tool)`,
    };
  }
  const probe = probeBubblewrap(environment);
  if (!probe.ok) {
    if (explicitMode !== undefined) {
      const where = options.mode !== undefined ? '--sandbox' : 'sandbox.mode in agent.yaml';
      throw new ConfigurationError(`The sandbox ${mode} was asked for (${where}), but ${probe.problem}.`, {
        code: 'SANDBOX_UNAVAILABLE',
        ...(options.mode === undefined ? { file: agent.configFile, field: 'sandbox.mode' } : {}),
        hint: `Install bubblewrap (${BUBBLEWRAP_INSTALL}), or run without a sandbox: --sandbox off (or sandbox: {mode: off} in agent.yaml).`,
      });
    }
    return {
      record: { mode: 'off', network: true, note: probe.problem },
      description: 'sandbox: none (bubblewrap is not available)',
      warning: `warning: tools run WITHOUT a sandbox: ${probe.problem}. Set sandbox: {mode: off} in agent.yaml to silence this.`,
    };
  }
  const writablePaths = (configured?.writable_paths ?? []).map((path, index) => {
    const absolute = isAbsolute(path) ? path : resolve(workDir, path);
    if (!existsSync(absolute)) {
      throw new ConfigurationError(`sandbox.writable_paths[${index}] ${absolute} does not exist.`, {
        code: 'CONFIG_INVALID',
        file: agent.configFile,
        field: `sandbox.writable_paths[${index}]`,
        hint: 'Create it first, or remove it from the list (a relative path is taken from the workspace).',
      });
    }
    if (isWithin(realPath(agent.home), realPath(absolute))) {
      throw new ConfigurationError(`sandbox.writable_paths[${index}] ${absolute} holds the agent's directory ${agent.home}.`, {
        code: 'CONFIG_INVALID',
        file: agent.configFile,
        field: `sandbox.writable_paths[${index}]`,
        hint: "A tool could then rewrite the agent's hooks.yaml or .env, which the engine trusts. List the directories under it that tools must write instead.",
      });
    }
    return absolute;
  });
  if (mode === 'workspace-write' && realPath(agent.home) === realPath(workDir)) {
    throw new ConfigurationError(
      `The workspace is the agent's directory (${agent.home}): a sandboxed tool could rewrite its hooks.yaml or .env.`,
      {
        code: 'CONFIG_INVALID',
        hint: `Give the run a workspace of its own (-w ${join(agent.home, 'work')}, or none for a new one under the agent), or let the tools write nothing: --sandbox read-only.`,
      },
    );
  }
  const limitsConfig = { ...configured?.limits, ...options.limits };
  const limits = sandboxLimitsOf(limitsConfig);
  // Not off: an unsandboxed choice returned above.
  const tools = workspaceSandbox({ mode, network }, workDir, agent.home, toolEnv.PATH ?? environment.PATH)!;
  return {
    policy: { ...tools, writablePaths, ...(limits ? { limits } : {}) },
    bubblewrap: probe.path,
    toolPrograms: tools.visiblePaths.filter((path) => path !== agent.home),
    record: { mode, network, ...(Object.keys(limitsConfig).length > 0 ? { limits: limitsRecord(limitsConfig) } : {}) },
    description: `sandbox: bubblewrap, ${mode}, ${networkText}${writablePaths.length > 0 ? `, also writable: ${writablePaths.join(', ')}` : ''}`,
  };
}

/**
 * The sandbox of a run's tools over `workDir` (no image): `.delta/` read only, the agent's directory and the
 * programs of `path` under /tmp visible. Also where a command grader of a run without an image runs, with
 * the mode and network the run's ENGINE_START recorded: the grader is the researcher's, but what it runs
 * (the workspace's test suite, a module it imports) is the model's. Undefined for a run whose tools ran
 * without a sandbox (`mode: off`).
 */
export function workspaceSandbox(
  run: Pick<SandboxRecord, 'mode' | 'network'>,
  workDir: string,
  agentHome: string,
  path: string | undefined,
): SandboxPolicy | undefined {
  if (run.mode === 'off') return undefined;
  return {
    mode: run.mode,
    network: run.network,
    workspace: workDir,
    protectedPaths: [join(workDir, '.delta')],
    visiblePaths: [agentHome, ...programsUnderTmp(path, agentHome)],
    writablePaths: [],
  };
}
