import { agentFingerprint, pinAgent } from './agent-fingerprint.js';
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { asDiskFault, ConfigurationError, DeltaError, diskWrite, makeDirectory } from '@delta/errors';
import {
  acquireRunLock,
  describeIoMigration,
  isRunId,
  JournalWriter,
  migrateLegacyIo,
  migrateLegacyRun,
  describeLegacyRunMigration,
  readLatestRunId,
  readMetadata,
  runPaths,
  updateMetadata,
  type ModelEndpoint,
  type RunMetadata,
  type JournalEvent,
  type RunState,
  type RunStatus,
  type NewJournalEvent,
} from '@delta/journal';
import type { ConfigProblem } from '@delta/yaml-config';
import { interactionFiles } from './ask-human.js';
import { driveRun } from './drive-run.js';
import type { ConfigOverrides } from './config-overrides.js';
import { effectiveConfig } from './effective-config.js';
import { chooseSandbox, recordLimits } from './sandbox-choice.js';
import { prepareImage, recordedImage, runLayerDirectory } from './prepare-image.js';
import { ENGINE_VERSION } from './engine-version.js';
import { workspaceManifest } from './workspace-manifest.js';
import { loadAgent, type LoadedAgent } from './load-agent.js';
import { openRunContext, releaseRunLock, resolveModel } from './open-run.js';
import type { EngineOptions, RunResult } from './run-options.js';

export interface ContinueRunOptions extends EngineOptions {
  workDir: string;
  /** The run to continue; by default the one in `.delta/LATEST`. */
  runId?: string;
  /**
   * A new user message (INTERRUPTED, COMPLETED, FAILED), or the human's answer (WAITING_FOR_INPUT).
   * Required for COMPLETED, FAILED and a WAITING_FOR_INPUT run with no interaction/response.txt.
   */
  message?: string;
  /** The agent, if already loaded; otherwise the run's agent_home is loaded. */
  agent?: LoadedAgent;
  /** When the agent is loaded here: every warning is an error (the CLI's `--strict`). */
  strict?: boolean;
  /** When the agent is loaded here: changes to its agent.yaml for this engine invocation (`--model`, `--set`). */
  overrides?: ConfigOverrides;
  /** When the agent is loaded here: each of its configuration warnings (unknown keys, deprecations, ...). */
  onWarning?: (warning: ConfigProblem) => void;
}

function loadRunAgent(home: string, options: ContinueRunOptions): LoadedAgent {
  const agent = loadAgent(home, { strict: options.strict === true, ...(options.overrides ? { overrides: options.overrides } : {}) });
  for (const warning of agent.warnings) options.onWarning?.(warning);
  return agent;
}

function noRun(workDir: string, detail: string): ConfigurationError {
  return new ConfigurationError(`No existing run found in the work directory ${workDir}${detail}`, {
    code: 'NO_RUN',
    hint: 'Use `delta run` to start a new run.',
  });
}

/** The status the run really has: the journal's ENGINE_END wins over a metadata.json a crash left behind. */
function effectiveStatus(metadataStatus: RunStatus, state: RunState): { status: RunStatus; crashed: boolean } {
  if (state.lastEnd) return { status: state.lastEnd.status, crashed: false };
  // We hold the lock and the journal has no end: the engine that wrote it is gone.
  return { status: metadataStatus, crashed: true };
}

/**
 * What the journal is told when its last engine left no ENGINE_END: it crashed (metadata.json still says
 * RUNNING), or it ended the run but the disk refused the journal that last event (metadata.json, written
 * in place, says how it ended).
 */
function unfinishedEnd(metadata: RunMetadata): string {
  if (metadata.status === 'RUNNING') {
    return 'The engine process that was running this run stopped without finishing (a crash or kill -9); the run is resumed from its journal.';
  }
  return (
    `The engine that was running this run ended it ${metadata.status}${metadata.error ? ` (${metadata.error})` : ''}, ` +
    'but could not record that in the journal; the run is resumed from its journal.'
  );
}

/** The run's last error was the endpoint's or the network's (marked `transient` in the journal), not the conversation's. */
function failedTransiently(events: Iterable<JournalEvent>): boolean {
  let last: JournalEvent | undefined;
  for (const event of events) if (event.type === 'ERROR') last = event;
  return last?.type === 'ERROR' && (last as { transient?: unknown }).transient === true;
}

/**
 * The endpoint of a run started before metadata.json recorded it: the base URL its last engine used, from
 * ENGINE_START (where its key came from is not known, so the key is looked up as usual).
 */
function journalEndpoint(events: Iterable<JournalEvent>): ModelEndpoint | undefined {
  let baseUrl: unknown;
  for (const event of events) if (event.type === 'ENGINE_START') baseUrl = event.config?.base_url;
  return typeof baseUrl === 'string'
    ? { base_url: baseUrl, base_url_source: 'journal', api_key_name: null, api_key_source: null }
    : undefined;
}

function requireMessage(status: RunStatus, workDir: string): ConfigurationError {
  const example = status === 'FAILED' ? 'Retry with this information: ...' : 'Now do something else';
  return new ConfigurationError(`Run is ${status}. To continue, provide a message using -m/--message`, {
    code: 'MESSAGE_REQUIRED',
    hint: `Example: delta continue -w ${workDir} -m "${example}"`,
  });
}

/**
 * Continues an existing run by the state table of spec 000 section 2.6.2: INTERRUPTED resumes (a
 * message is optional), WAITING_FOR_INPUT takes the answer, COMPLETED and FAILED take a new message, and
 * a run whose engine crashed is repaired and resumed. A run a live engine holds is refused.
 */
export async function continueRun(options: ContinueRunOptions): Promise<RunResult> {
  const workDir = resolve(options.workDir);
  if (!existsSync(workDir)) throw noRun(workDir, ' (the directory does not exist)');
  const runId = options.runId ?? readLatestRunId(workDir);
  if (!runId) throw noRun(workDir, '');
  if (!isRunId(runId)) {
    // Never a path: a run id names a directory directly under .delta/.
    throw new ConfigurationError(`"${runId}" is not a run id.`, {
      code: 'RUN_ID_INVALID',
      hint: 'A run id is a name such as 20261122_143522_a1b2c3 or nightly-42 (see `delta list -w <workspace>`); without --run-id the latest run is used.',
    });
  }
  // A v1.2 run (.delta/runs/<id>/execution/) moves to where this engine writes, records and all: this is its first write.
  const legacyMigration = migrateLegacyRun(workDir, runId);
  const paths = runPaths(workDir, runId);
  if (!existsSync(paths.metadata)) throw noRun(workDir, ` with id ${runId}`);
  const metadata = readMetadata(paths.metadata);
  const agent = options.agent ?? loadRunAgent(metadata.agent_home, options);

  let lock;
  try {
    lock = acquireRunLock(paths.lock, runId);
  } catch (error) {
    if (DeltaError.isInstance(error) && error.code === 'RUN_LOCKED') {
      throw new ConfigurationError(`Run is currently executing. Wait for completion or interrupt first.\n${error.message}`, {
        code: 'RUN_LOCKED',
        ...(error.hint ? { hint: error.hint } : {}),
      });
    }
    throw asDiskFault(error, paths.lock);
  }
  try {
    // Read and folded once; nothing is written to it before the checks below pass (a torn last line is removed by the first append).
    const journal = JournalWriter.open(paths.journal);
    const { status, crashed } = effectiveStatus(metadata.status, journal.state);
    if (!crashed && metadata.status !== status) {
      // The engine was killed between writing ENGINE_END and metadata.json: the journal is the truth.
      updateMetadata(paths.metadata, { status, end_time: status === 'WAITING_FOR_INPUT' ? null : new Date().toISOString() });
    }
    const message = options.message;
    const resend = status === 'FAILED' && message === undefined && failedTransiently(journal.state.events);
    if ((status === 'COMPLETED' || status === 'FAILED') && message === undefined && !resend) throw requireMessage(status, workDir);
    if (status === 'WAITING_FOR_INPUT') {
      if (message !== undefined) {
        const response = interactionFiles(paths).response;
        makeDirectory(paths.interactionDir);
        diskWrite(response, () => writeFileSync(response, message));
      } else if (!existsSync(interactionFiles(paths).response)) {
        throw new ConfigurationError('Run is WAITING_FOR_INPUT. To continue, provide the answer using -m/--message', {
          code: 'MESSAGE_REQUIRED',
          hint: `Example: delta continue -w ${workDir} -m "yes, proceed" (or write it to ${interactionFiles(paths).response})`,
        });
      }
    }

    // The endpoint the run started with, unless the caller names another (--base-url): never a .env written since.
    const resolved = await resolveModel(options, agent, workDir, metadata.model_endpoint ?? journalEndpoint(journal.state.events));
    let sandbox = chooseSandbox(agent, workDir, options.sandbox, options.environment ?? process.env, options.toolEnv);
    // A run in an image goes on in the image it recorded, over its own layer.
    const recorded = recordedImage(journal.state.events);
    const image =
      recorded === undefined
        ? undefined
        : await prepareImage(
            sandbox,
            {
              reference: recorded.reference,
              workdir: recorded.workdir,
              recordedDigest: recorded.digest,
              cwd: agent.home,
              ...(options.sandbox?.imageCache === undefined ? {} : { cacheDir: options.sandbox.imageCache }),
            },
            runLayerDirectory(paths),
          );
    if (image) sandbox = image.choice;
    // A v1.2 run kept its records in runtime_io/: moved to io/ before anything is written there (recorded below).
    const ioMigration = migrateLegacyIo(paths);
    const context = openRunContext(options, agent, paths, journal, resolved, sandbox, image);
    const journalRepair = journal.repair;
    try {
      // A disk that refuses this leaves the run as it was, and says so (the error names metadata.json).
      context.metadata.update({
        status: 'RUNNING',
        end_time: null,
        error: null,
        status_reason: null,
        max_iterations: context.maxIterations,
        model_endpoint: resolved.endpoint,
      });
      const outcome = await driveRun(context, () => {
        context.log(
          `continuing run ${runId} (${crashed ? `${status}, its engine stopped without finishing` : status}) in ${workDir} (${sandbox.description})`,
        );
        if (sandbox.warning) context.log(sandbox.warning);
        const limits = recordLimits(sandbox.record, context.sandbox);
        if (limits.warning) context.log(limits.warning);
        const events: NewJournalEvent[] = [];
        events.push({
          type: 'ENGINE_START',
          run_id: runId,
          agent_home: agent.home,
          work_dir: workDir,
          agent_name: agent.config.name,
          model: agent.config.llm.model,
          max_iterations: context.maxIterations,
          engine_version: ENGINE_VERSION,
          config: effectiveConfig(agent, { maxIterations: context.maxIterations, baseUrl: context.model.baseUrl }),
          ...options.origin,
          workspace: workspaceManifest(workDir),
          resumed: true,
          sandbox: limits.record,
          environment: context.environmentRecord,
          agent_fingerprint: pinAgent(context, agentFingerprint(agent), options.pinAgentVersion),
        });
        if (journalRepair) {
          events.push({
            type: 'SYSTEM_MESSAGE',
            level: 'WARN',
            content: `The journal's last line was cut off by a crash (${journalRepair.bytes} bytes); it was removed and kept in ${journalRepair.savedTo}.`,
          });
        }
        if (legacyMigration) events.push({ type: 'SYSTEM_MESSAGE', level: 'INFO', content: describeLegacyRunMigration(legacyMigration) });
        if (ioMigration) events.push({ type: 'SYSTEM_MESSAGE', level: 'INFO', content: describeIoMigration(ioMigration) });
        if (crashed) events.push({ type: 'SYSTEM_MESSAGE', level: 'WARN', content: unfinishedEnd(metadata) });
        if (![...journal.state.events].some((event) => event.type === 'USER_MESSAGE')) {
          // Killed before the task reached the journal: metadata.json still has it.
          events.push({ type: 'USER_MESSAGE', content: metadata.initial_message });
        }
        if (message !== undefined && status !== 'WAITING_FOR_INPUT') events.push({ type: 'USER_MESSAGE', content: message });
        return events;
      });
      return { ...outcome, runId, workDir, paths, metadata: context.metadata.current };
    } finally {
      await context.close();
    }
  } finally {
    releaseRunLock(lock);
  }
}
