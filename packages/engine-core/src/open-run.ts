import { closeSync, openSync, writeSync } from 'node:fs';
import { diskWrite } from '@delta/errors';
import { CommandLauncher, pathInside, RunSandbox } from '@delta/command-runner';
import {
  InvocationRequestRecorder,
  MetadataFile,
  type JournalWriter,
  type ModelEndpoint,
  type RunLock,
  type RunPaths,
} from '@delta/journal';
import { firstHookStep } from './lifecycle-hooks.js';
import { redactable, redactSecretText } from './redact-secret.js';
import { runSecrets } from './run-secrets.js';
import { DEFAULT_MAX_ITERATIONS } from './agent-config.js';
import type { LoadedAgent } from './load-agent.js';
import { createModelClient, type ModelClient } from '@delta/model-wire';
import { readDotenv } from './dotenv.js';
import { CREDENTIAL_NAMES } from './model-settings.js';
import { runModelSettings } from './run-model-settings.js';
import { judgeWorkspaceEnv, recordWorkspaceEnvEnd, recordWorkspaceEnvStart, type WorkspaceEnvTrust } from './workspace-env-trust.js';
import { type RunContext, stopToolProcesses } from './run-context.js';
import type { SandboxChoice } from './sandbox-choice.js';
import type { EngineOptions } from './run-options.js';
import { checkCostLimit, engineTime, limitedSignal, RunLimitReached } from './run-limits.js';
import { modelCredentials } from './model-credentials.js';
import { toolEnvironment, userEnvironment } from './tool-environment.js';

/** The model client a run uses, where its requests go and its key came from, and what was not obeyed. */
export interface ResolvedModel {
  model: ModelClient;
  apiKey: string | undefined;
  /** Recorded in metadata.json: `delta continue` and batch resumes go to this endpoint. */
  endpoint: ModelEndpoint;
  /** The workspace `.env` as judged at this start (each engine's start and end are recorded under `.delta/`). */
  envTrust: WorkspaceEnvTrust;
  /** Said on stderr and in engine.log once the run's log is open. */
  warnings: string[];
}

function distrustWarning(trust: WorkspaceEnvTrust, names: string[]): string {
  return (
    `${trust.file} sets ${names.join(', ')}, but ${trust.distrusted}; a .env a tool could have written does not choose ` +
    'where the model key goes, so it is not obeyed. If you wrote it, edit it again while no run is running (or remove .delta/workspace-env.json); or pass --base-url.'
  );
}

/**
 * The model client: the caller's own, or one built from explicit settings or the `.env` layers. `recorded`
 * (a resumed run's endpoint) wins over every `.env` and the environment; a workspace `.env` that a run's
 * tools wrote is not obeyed at all (see judgeWorkspaceEnv).
 */
export async function resolveModel(
  options: EngineOptions,
  agent: LoadedAgent,
  workDir: string,
  recorded?: ModelEndpoint,
): Promise<ResolvedModel> {
  // Checked here, before anything of the run is written: both startRun and continueRun call this first.
  checkCostLimit(options.maxCost, agent);
  const envTrust = judgeWorkspaceEnv(workDir);
  const warnings: string[] = [];
  const secretVariables = [...new Set([...(options.secretVariables ?? []), ...(recorded?.secret_variables ?? [])])];
  const named = secretVariables.length > 0 ? { secret_variables: secretVariables } : {};
  if (options.model) {
    const endpoint = {
      base_url: options.model.baseUrl,
      base_url_source: 'option',
      api_key_name: null,
      api_key_source: options.apiKey ? 'option' : null,
      ...named,
    };
    return { model: options.model, apiKey: options.apiKey, endpoint, envTrust, warnings };
  }
  if (envTrust.distrusted !== undefined) {
    const values =
      envTrust.values ??
      readDotenv(envTrust.file, { allowedRoots: [workDir, agent.home], onRefused: (message) => warnings.push(message) }) ??
      {};
    const names = CREDENTIAL_NAMES.filter((name) => values[name] !== undefined);
    if (names.length > 0) warnings.push(distrustWarning(envTrust, names));
  }
  // A key the caller gives (a models file's entry) still finds its base URL as any run does (issue 42, fault 7).
  const settings = runModelSettings(
    workDir,
    agent.home,
    {
      environment: options.environment,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      apiKeyName: options.apiKeyName,
      recorded,
      onWarning: (message) => warnings.push(message),
    },
    envTrust,
  );
  const { apiKey, baseUrl } = settings;
  const llm = agent.config.llm;
  const model = await createModelClient({
    apiKey,
    baseUrl,
    maxRetries: options.maxRetries ?? llm.max_retries,
    timeoutMs: llm.timeout_ms,
    attemptTimeoutMs: llm.attempt_timeout_ms,
    maxResponseBytes: llm.max_response_bytes,
  });
  const endpoint: ModelEndpoint = {
    base_url: baseUrl ?? null,
    base_url_source: (settings.baseUrlSource === 'recorded' ? recorded?.base_url_source : settings.baseUrlSource) ?? null,
    api_key_name: settings.apiKeyName ?? null,
    api_key_source: settings.apiKeySource ?? null,
    ...named,
  };
  return { model, apiKey, endpoint, envTrust, warnings };
}

/** Runs a step of closing a run whose failure (a full disk, say) changes nothing any more. */
function quietly(step: () => void): void {
  try {
    step();
  } catch {
    // The outcome is already recorded, or says why it could not be.
  }
}

/**
 * Lets go of the run's lock. A lock file the disk will not let us remove (read-only by now) is left
 * behind, naming this process: the next engine finds its holder gone and takes it over.
 */
export function releaseRunLock(lock: RunLock): void {
  quietly(() => lock.release());
}

/**
 * Builds what one engine process needs to drive a run whose directories and lock already exist, around
 * its journal (opened, and so read and folded, once by the caller).
 */
export function openRunContext(
  options: EngineOptions,
  agent: LoadedAgent,
  paths: RunPaths,
  journal: JournalWriter,
  resolved: ResolvedModel,
  sandbox: SandboxChoice,
  image?: { env: Record<string, string>; release: () => void },
): RunContext {
  const { model, apiKey } = resolved;
  // --timeout: the run's signal aborts when this invocation's time is up; a task's timeout_sec, when the run's is.
  const timeLimit = options.timeLimitMs === undefined ? undefined : { ms: options.timeLimitMs, spentMs: engineTime(journal.state.events) };
  const limit = limitedSignal(options.signal, options.timeoutMs, timeLimit);
  let engineLog: number | undefined;
  // The person sees the line first: engine.log may be what the disk refuses (then the run fails, naming it).
  // The values of the other model keys' variables (a models file's): redacted, and kept from tools, as the run's own.
  const environment = options.environment ?? process.env;
  const otherKeys = (resolved.endpoint.secret_variables ?? [])
    .map((name) => environment[name]?.trim())
    .filter((value): value is string => value !== undefined && value !== '');
  // Kept from every environment of the run, by value: the keys, the MCP servers' credentials, the caller's own.
  const kept = [...(apiKey === undefined ? [] : [apiKey]), ...otherKeys, ...runSecrets(undefined, agent), ...(options.secrets ?? [])];
  const secrets = redactable([...runSecrets(apiKey, agent), ...otherKeys, ...(options.secrets ?? [])]);
  // Every progress line, for the person and engine.log, holds no secret (an error may quote what a server said).
  const log = (said: string) => {
    const line = redactSecretText(said, secrets);
    options.onLog?.(line);
    diskWrite(paths.engineLog, () => {
      engineLog ??= openSync(paths.engineLog, 'a');
      writeSync(engineLog, `${new Date().toISOString()} ${line}\n`);
    });
  };
  const engine = { ...options.toolEnv, DELTA_RUN_ID: paths.runId, DELTA_AGENT_HOME: agent.home, DELTA_CWD: paths.workDir };
  // Under an image, the workspace is at its workdir, and the image's environment is the tools' own.
  const insideWorkDir = sandbox.policy ? pathInside(sandbox.policy, paths.workDir) : paths.workDir;
  const tools = toolEnvironment(environment, {
    policy: agent.config.sandbox?.env,
    secrets: kept,
    engine: { ...engine, DELTA_CWD: insideWorkDir },
    paths: { agentHome: agent.home, workDir: insideWorkDir },
    ...(image ? { imageEnv: image.env } : {}),
  });
  for (const warning of [...resolved.warnings, ...tools.warnings]) log(`warning: ${warning}`);
  const warned = new Set<string>();
  // Where no tool can write: what the workspace .env held when this engine started and when it ended.
  recordWorkspaceEnvStart(paths.workDir, paths.runId);
  // The process's one launcher, shared with every other run in it (a batch); a run without tools or
  // hooks needs none. Taken now, so that it is ready by the first tool call.
  const launcherLease = agent.tools.length > 0 || Object.values(agent.hooks).some(Boolean) ? CommandLauncher.shared() : undefined;
  const context: RunContext = {
    agent,
    paths,
    journal,
    requests: new InvocationRequestRecorder(paths),
    metadata: new MetadataFile(paths.metadata),
    model,
    env: tools.environment,
    userEnv: userEnvironment(environment, { secrets: kept, engine }),
    environmentRecord: tools.record,
    credentials: modelCredentials(apiKey, model.baseUrl),
    secrets,
    maxIterations: options.maxIterations ?? agent.config.max_iterations ?? DEFAULT_MAX_ITERATIONS,
    signal: limit.signal,
    maxCost: options.maxCost,
    log,
    warnOnce: (line) => {
      if (warned.has(line)) return;
      warned.add(line);
      log(`warning: ${line}`);
    },
    launcher: launcherLease?.launcher,
    // Started now, so that it is ready by the first tool call; hooks and generators never run in it. The
    // stdio MCP servers run in it too (see startRunMcpServers); a url: server is not the engine's to start.
    sandbox:
      (agent.tools.length > 0 || agent.mcpServers.some((entry) => entry.config.command !== undefined)) &&
      sandbox.policy &&
      sandbox.bubblewrap
        ? RunSandbox.start(sandbox.policy, sandbox.bubblewrap, {
            // The run's layer passed its limit: the sandbox ends, and the run with it.
            onLimit: (_limit, detail) => limit.reach(new RunLimitReached(`stopped: ${detail}`, 'layer')),
          })
        : undefined,
    // The run has ended (its outcome is decided and recorded): nothing here may throw over it.
    close: async () => {
      // The servers go first: they stop at run end and on a pause, and a call of theirs is over; every
      // process left in the sandbox ends with it (driveRun did this already, before the end hooks).
      await stopToolProcesses(context);
      await launcherLease?.release();
      quietly(() => image?.release());
      limit.clear();
      quietly(() => recordWorkspaceEnvEnd(paths.workDir, paths.runId));
      quietly(() => context.metadata.close());
      quietly(() => journal.close());
      if (engineLog !== undefined) quietly(() => closeSync(engineLog!));
      engineLog = undefined;
    },
    mcp: undefined,
    onEvent: options.onEvent,
    onModelDelta: options.onModelDelta,
    askHuman: options.askHuman,
    recordedTools: options.recordedTools,
    hookStep: firstHookStep(journal.state),
    limitsHit: new Set(),
  };
  return context;
}
