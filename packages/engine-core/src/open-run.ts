import { closeSync, openSync, writeSync } from 'node:fs';
import { CommandLauncher } from '@delta/command-runner';
import { InvocationRequestRecorder, MetadataFile, type JournalWriter, type RunPaths } from '@delta/journal';
import { firstHookStep } from './lifecycle-hooks.js';
import { DEFAULT_MAX_ITERATIONS } from './agent-config.js';
import type { LoadedAgent } from './load-agent.js';
import { createModelClient, type ModelClient } from './model-client.js';
import { resolveModelSettings } from './model-settings.js';
import type { RunContext } from './run-context.js';
import type { EngineOptions } from './run-options.js';
import { modelCredentials, toolEnvironment } from './tool-environment.js';

/** The model client: the caller's own, or one built from explicit settings or the `.env` layers. */
export async function resolveModel(
  options: EngineOptions,
  agent: LoadedAgent,
  workDir: string,
): Promise<{ model: ModelClient; apiKey: string | undefined }> {
  if (options.model) return { model: options.model, apiKey: options.apiKey };
  const settings =
    options.apiKey === undefined
      ? resolveModelSettings(workDir, agent.home, options.environment ?? process.env, { baseUrl: options.baseUrl })
      : undefined;
  const apiKey = options.apiKey ?? settings?.apiKey;
  const llm = agent.config.llm;
  const model = await createModelClient({
    apiKey,
    baseUrl: options.baseUrl ?? settings?.baseUrl,
    maxRetries: llm.max_retries,
    timeoutMs: llm.timeout_ms,
  });
  return { model, apiKey };
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
  model: ModelClient,
  apiKey: string | undefined,
): RunContext {
  let engineLog: number | undefined;
  const log = (line: string) => {
    engineLog ??= openSync(paths.engineLog, 'a');
    writeSync(engineLog, `${new Date().toISOString()} ${line}\n`);
    options.onLog?.(line);
  };
  const context: RunContext = {
    agent,
    paths,
    journal,
    requests: new InvocationRequestRecorder(paths),
    metadata: new MetadataFile(paths.metadata),
    model,
    env: toolEnvironment(options.environment ?? process.env, apiKey, {
      ...options.toolEnv,
      DELTA_RUN_ID: paths.runId,
      DELTA_AGENT_HOME: agent.home,
      DELTA_CWD: paths.workDir,
    }),
    credentials: modelCredentials(apiKey, model.baseUrl),
    maxIterations: options.maxIterations ?? agent.config.max_iterations ?? DEFAULT_MAX_ITERATIONS,
    signal: options.signal ?? new AbortController().signal,
    log,
    // Started now, so that it is ready by the first tool call; a run without tools or hooks needs none.
    launcher: agent.tools.length > 0 || Object.values(agent.hooks).some(Boolean) ? CommandLauncher.start() : undefined,
    close: async () => {
      try {
        await context.launcher?.close();
      } catch (error) {
        log(`a record could not be written: ${error instanceof Error ? error.message : String(error)}`);
      }
      context.metadata.close();
      journal.close();
      if (engineLog !== undefined) closeSync(engineLog);
      engineLog = undefined;
    },
    onEvent: options.onEvent,
    askHuman: options.askHuman,
    hookStep: firstHookStep(journal.state),
  };
  return context;
}
