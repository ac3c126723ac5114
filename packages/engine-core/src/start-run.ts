import { appendFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ConfigurationError, DeltaError } from '@delta/errors';
import {
  acquireRunLock,
  CONTROL_PLANE_VERSION,
  createNextWorkspace,
  createRunDirectories,
  createRunId,
  JournalWriter,
  runPaths,
  updateMetadata,
  writeLatestRunId,
  writeMetadata,
  workspacesDirectory,
  type JournalEvent,
  type RunPaths,
} from '@delta/journal';
import { DEFAULT_MAX_ITERATIONS } from './agent-config.js';
import { ENGINE_VERSION } from './engine-version.js';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import type { LoadedAgent } from './load-agent.js';
import { createModelClient, type ModelClient } from './model-client.js';
import { resolveModelSettings } from './model-settings.js';
import { record, type RunContext } from './run-context.js';
import { runLoop } from './run-loop.js';
import { toolEnvironment } from './tool-environment.js';

export interface StartRunOptions {
  agent: LoadedAgent;
  /** The task: the first user message. */
  message: string;
  /** The workspace. Without it, the next `<agent>/workspaces/W00N` is created. */
  workDir?: string;
  /** Model calls this run may make before it stops as INTERRUPTED (exit 3). */
  maxIterations?: number;
  /** A model client of your own; otherwise one is made from `apiKey`/`baseUrl` or the environment. */
  model?: ModelClient;
  apiKey?: string;
  baseUrl?: string;
  /** The environment the engine reads settings from and passes on to tools (default `process.env`). */
  environment?: NodeJS.ProcessEnv;
  /** Variables added to the environment of tools and generators. */
  toolEnv?: Record<string, string>;
  /** Aborting stops the running tool's process group and ends the run as INTERRUPTED. */
  signal?: AbortSignal;
  /** Every journal event, as it is written. */
  onEvent?: (event: JournalEvent) => void;
  /** Progress lines for a person. */
  onLog?: (line: string) => void;
}

export interface RunResult extends RunOutcome {
  runId: string;
  workDir: string;
  paths: RunPaths;
}

function prepareWorkspace(agent: LoadedAgent, workDir: string | undefined): { path: string; id: string | null } {
  if (workDir === undefined) return createNextWorkspace(agent.home);
  const path = resolve(workDir);
  if (existsSync(path) && !statSync(path).isDirectory()) {
    throw new ConfigurationError(`The workspace ${path} is a file, not a directory.`, {
      code: 'WORKSPACE_INVALID',
      hint: 'Pass a directory with -w (it is created if it does not exist).',
    });
  }
  mkdirSync(path, { recursive: true });
  // A workspace chosen by name (`<agent>/workspaces/W002`) keeps its id in metadata.json.
  const inAgent = dirname(path) === workspacesDirectory(agent.home) && /^W\d{3,}$/.test(basename(path));
  return { path, id: inAgent ? basename(path) : null };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Starts a new run of an agent and drives it until it completes, fails, pauses or is stopped. */
export async function startRun(options: StartRunOptions): Promise<RunResult> {
  const environment = options.environment ?? process.env;
  const maxIterations = options.maxIterations ?? options.agent.config.max_iterations ?? DEFAULT_MAX_ITERATIONS;
  const workspace = prepareWorkspace(options.agent, options.workDir);
  let model = options.model;
  let apiKey = options.apiKey;
  if (!model) {
    const settings =
      apiKey === undefined ? resolveModelSettings(workspace.path, options.agent.home, environment) : undefined;
    apiKey = apiKey ?? settings?.apiKey;
    const llm = options.agent.config.llm;
    model = await createModelClient({
      apiKey: apiKey!,
      baseUrl: options.baseUrl ?? settings?.baseUrl,
      maxRetries: llm.max_retries,
      timeoutMs: llm.timeout_ms,
    });
  }

  const runId = createRunId();
  const paths = runPaths(workspace.path, runId);
  createRunDirectories(paths);
  const lock = acquireRunLock(paths.lock, runId);
  const now = new Date().toISOString();
  writeMetadata(paths.metadata, {
    schema_version: CONTROL_PLANE_VERSION,
    run_id: runId,
    workspace_id: workspace.id,
    agent_name: options.agent.config.name,
    status: 'RUNNING',
    created_at: now,
    updated_at: now,
    end_time: null,
    initial_message: options.message,
    iterations: 0,
    max_iterations: maxIterations,
    error: null,
    agent_home: options.agent.home,
    work_dir: workspace.path,
  });
  writeLatestRunId(workspace.path, runId);

  const log = (line: string) => {
    appendFileSync(paths.engineLog, `${new Date().toISOString()} ${line}\n`);
    options.onLog?.(line);
  };
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const context: RunContext = {
    agent: options.agent,
    paths,
    journal: JournalWriter.open(paths.journal),
    model,
    env: toolEnvironment(environment, apiKey, {
      ...options.toolEnv,
      DELTA_RUN_ID: runId,
      DELTA_AGENT_HOME: options.agent.home,
      DELTA_CWD: workspace.path,
    }),
    maxIterations,
    signal,
    log,
    onEvent: options.onEvent,
  };
  log(`run ${runId} of agent ${options.agent.config.name} in ${workspace.path}`);
  for (const warning of options.agent.warnings) log(`warning: ${warning.file} ${warning.field}: ${warning.message}`);

  let outcome: RunOutcome;
  try {
    record(context, {
      type: 'ENGINE_START',
      run_id: runId,
      agent_home: options.agent.home,
      work_dir: workspace.path,
      agent_name: options.agent.config.name,
      model: options.agent.config.llm.model,
      max_iterations: maxIterations,
      engine_version: ENGINE_VERSION,
    });
    record(context, { type: 'USER_MESSAGE', content: options.message });
    outcome = await runLoop(context);
  } catch (error) {
    outcome = signal.aborted
      ? { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason: 'interrupted by a signal' }
      : {
          status: 'FAILED',
          exitCode: DeltaError.isInstance(error) && error.kind === 'configuration' ? ExitCode.USAGE : ExitCode.FAILED,
          reason: errorMessage(error),
          error,
        };
  }
  try {
    finishRun(context, outcome);
  } finally {
    lock.release();
  }
  return { ...outcome, runId, workDir: workspace.path, paths };
}

/** Records how the run ended: ERROR (if any) and ENGINE_END in the journal, then metadata.json. */
export function finishRun(context: RunContext, outcome: RunOutcome): void {
  const iteration = (() => {
    try {
      return updateMetadata(context.paths.metadata, {}).iterations;
    } catch {
      return 0;
    }
  })();
  if (outcome.status === 'FAILED') {
    const error = outcome.error;
    record(context, {
      type: 'ERROR',
      iteration,
      error_message: outcome.reason ?? 'the run failed',
      ...(DeltaError.isInstance(error) ? { error_code: error.code } : {}),
    });
  }
  record(context, {
    type: 'ENGINE_END',
    run_id: context.paths.runId,
    status: outcome.status,
    final_iteration: iteration,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
  });
  updateMetadata(context.paths.metadata, {
    status: outcome.status,
    end_time: new Date().toISOString(),
    error: outcome.status === 'FAILED' ? (outcome.reason ?? 'the run failed') : null,
    status_reason: outcome.reason ?? null,
    exit_code: outcome.exitCode,
  });
  context.log(`run ${context.paths.runId} ended: ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}`);
}
