import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ConfigurationError, makeDirectory } from '@delta/errors';
import {
  acquireRunLock,
  CONTROL_PLANE_VERSION,
  createNextWorkspace,
  createRunDirectories,
  createRunId,
  JournalWriter,
  type NewJournalEvent,
  runIdProblem,
  runPaths,
  workspacesDirectory,
  writeLatestRunId,
  writeMetadata,
} from '@delta/journal';
import { agentFingerprint, pinAgent } from './agent-fingerprint.js';
import { driveRun } from './drive-run.js';
import { effectiveConfig } from './effective-config.js';
import { ENGINE_VERSION } from './engine-version.js';
import { workspaceManifest } from './workspace-manifest.js';
import type { LoadedAgent } from './load-agent.js';
import { openRunContext, releaseRunLock, resolveModel } from './open-run.js';
import type { EngineOptions, RunResult } from './run-options.js';
import { chooseSandbox, recordLimits } from './sandbox-choice.js';
import { imageRequestOf, prepareImage, runLayerDirectory } from './prepare-image.js';

export interface StartRunOptions extends EngineOptions {
  agent: LoadedAgent;
  /** The task: the first user message. */
  message: string;
  /** The workspace. Without it, the next `<agent>/workspaces/W00N` is created. */
  workDir?: string;
  /**
   * The run's id, chosen by the caller (letters, digits, `.`, `_`, `-`); by default a new
   * `YYYYMMDD_HHmmss_xxxxxx`. An id already used in the workspace is refused (`RUN_ID_TAKEN`).
   */
  runId?: string;
}

function chosenRunId(runId: string | undefined): string {
  if (runId === undefined) return createRunId();
  const problem = runIdProblem(runId);
  if (problem !== undefined) {
    throw new ConfigurationError(`The run id ${JSON.stringify(runId)} cannot be used: ${problem}.`, {
      code: 'RUN_ID_INVALID',
      field: 'runId',
      hint: 'Choose a name such as nightly-42 or review.2026-11-24; it becomes a directory under .delta/.',
    });
  }
  return runId;
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
  makeDirectory(path);
  // A workspace chosen by name (`<agent>/workspaces/W002`) keeps its id in metadata.json.
  const inAgent = dirname(path) === workspacesDirectory(agent.home) && /^W\d{3,}$/.test(basename(path));
  return { path, id: inAgent ? basename(path) : null };
}

/** Starts a new run of an agent and drives it until it completes, fails, pauses or is stopped. */
export async function startRun(options: StartRunOptions): Promise<RunResult> {
  const runId = chosenRunId(options.runId);
  const workspace = prepareWorkspace(options.agent, options.workDir);
  const resolved = await resolveModel(options, options.agent, workspace.path);
  // Before the run exists: a sandbox asked for that cannot be had leaves nothing behind.
  let sandbox = chooseSandbox(options.agent, workspace.path, options.sandbox, options.environment ?? process.env, options.toolEnv);
  const paths = runPaths(workspace.path, runId);
  // An image as the tools' root, unpacked (once, shared) before the run exists too: one that cannot be had
  // (a wrong name, an unreachable registry) leaves no run behind for `delta list` and `LATEST` to name.
  const request = imageRequestOf(options.agent, options.sandbox);
  const image = request === undefined ? undefined : await prepareImage(sandbox, request, runLayerDirectory(paths));
  if (image) sandbox = image.choice;
  let lock: ReturnType<typeof acquireRunLock>;
  try {
    createRunDirectories(paths);
    lock = acquireRunLock(paths.lock, runId);
  } catch (error) {
    image?.release();
    throw error;
  }
  try {
    // LATEST first: a run killed at any later instant can be found and resumed by `delta continue -w`.
    writeLatestRunId(workspace.path, runId);
    const context = openRunContext(options, options.agent, paths, JournalWriter.open(paths.journal), resolved, sandbox, image);
    try {
      const now = new Date().toISOString();
      // Without metadata.json there is no run to continue: a disk that refuses it fails here, naming it.
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
        max_iterations: context.maxIterations,
        error: null,
        agent_home: options.agent.home,
        work_dir: workspace.path,
        model_endpoint: resolved.endpoint,
        ...options.origin,
      });
      const outcome = await driveRun(context, () => {
        context.log(`run ${runId} of agent ${options.agent.config.name} in ${workspace.path} (${sandbox.description})`);
        if (sandbox.warning) context.log(sandbox.warning);
        for (const note of image?.notes ?? []) context.log(`note: ${note}`);
        const limits = recordLimits(sandbox.record, context.sandbox);
        if (limits.warning) context.log(limits.warning);
        const start: NewJournalEvent = {
          type: 'ENGINE_START',
          run_id: runId,
          agent_home: options.agent.home,
          work_dir: workspace.path,
          agent_name: options.agent.config.name,
          model: options.agent.config.llm.model,
          max_iterations: context.maxIterations,
          engine_version: ENGINE_VERSION,
          config: effectiveConfig(options.agent, { maxIterations: context.maxIterations, baseUrl: context.model.baseUrl }),
          ...options.origin,
          workspace: workspaceManifest(workspace.path),
          sandbox: limits.record,
          environment: context.environmentRecord,
          agent_fingerprint: pinAgent(context, agentFingerprint(options.agent), options.pinAgentVersion),
        };
        return [start, { type: 'USER_MESSAGE', content: options.message }];
      });
      return { ...outcome, runId, workDir: workspace.path, paths, metadata: context.metadata.current };
    } finally {
      await context.close();
    }
  } finally {
    releaseRunLock(lock);
  }
}
