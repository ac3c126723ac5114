import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigurationError, SystemError } from '@delta/errors';
import {
  acquireRunLock,
  addTokenUsage,
  CONTROL_PLANE_VERSION,
  createOriginWorkspace,
  createRunDirectories,
  createRunId,
  JournalWriter,
  runPaths,
  writeLatestRunId,
  writeMetadata,
  type JournalEvent,
  type NewJournalEvent,
  type RunOrigin,
  type RunPaths,
  type TokenUsage,
} from '@delta/journal';
import type { ConfigOverrides } from './config-overrides.js';
import { continueRun } from './continue-run.js';
import { ENGINE_VERSION } from './engine-version.js';
import { loadAgent } from './load-agent.js';
import { resolveModel } from './open-run.js';
import { type AgentVersions, loadRecordedAgent } from './recorded-agent.js';
import { openRecordedRun, recordedOverrides, type RecordedRun } from './recorded-run.js';
import { replayRun, type ReplayResult } from './replay-run.js';
import type { EngineOptions, RunResult } from './run-options.js';
import { workspaceManifest } from './workspace-manifest.js';

export interface ForkRunOptions extends EngineOptions {
  /** The run to fork: its workspace, and its id (default: the workspace's latest run). */
  source: { workDir: string; runId?: string };
  /** The fork keeps the recorded run's iterations 1..at (0: only the task) and goes on from there. */
  at: number;
  /** The fork's workspace, prepared by the caller; by default a fresh `<originBase>/forks/F00N` (never among the agent's workspaces). */
  into?: string;
  /** Where a fresh `forks/F00N` is made without `into` (a batch's runs: `OUT/.batch`); default the agent directory. */
  originBase?: string;
  /**
   * Kept copies of the agent's versions: when the recorded run's agent directory no longer holds the version
   * the run started with, the fork (its rebuild and its live part) runs the copy of that version.
   */
  agentVersions?: AgentVersions;
  /** Fills the fork's workspace before its rebuild, as the recorded run found its own (a batch run's task files). */
  prepareWorkspace?: (workDir: string) => void;
  /** A new user message before the model's next turn. */
  message?: string;
  /** Changes to agent.yaml for the live part (`--model`, `--set`); the rebuild replays the run as recorded. */
  overrides?: ConfigOverrides;
  /** The fork's run id (default: a new one). */
  runId?: string;
  /** The agent directory, when not the recorded one (a recording that moved); the fork's runs use it. */
  agentHome?: string;
}

export interface ForkResult extends RunResult {
  forkedFrom: RunOrigin;
  /** The replay that rebuilt the workspace (absent for `at: 0`). */
  rebuild?: ReplayResult;
  /** The kept copy of the version the run used, when the fork runs it (the agent directory holds another version now). */
  keptAgentHome?: string;
}

/** Engine bookkeeping of the recorded run's own invocations: the fork's journal records its own. */
const NOT_COPIED = new Set<JournalEvent['type']>(['ENGINE_START', 'ENGINE_END', 'ERROR']);

/** The recorded run's events through iteration `at`: up to its next model call, less the messages that came after. */
export function eventsThrough(source: RecordedRun, at: number): JournalEvent[] {
  const next = source.events.findIndex((event) => event.type === 'THOUGHT' && event.iteration > at);
  const kept = (next < 0 ? source.events : source.events.slice(0, next)).filter((event) => !NOT_COPIED.has(event.type));
  // A message sent after iteration `at` (a `delta continue -m`) belongs to what came next; the task stays.
  while (kept.length > 1 && kept.at(-1)!.type === 'USER_MESSAGE') kept.pop();
  return kept;
}

/** The io/ records the copied events point to: invocations of iterations 1..at (deltas chain to them) and the tools' executions. */
function copyRecords(source: RecordedRun, paths: RunPaths, events: readonly JournalEvent[], at: number): void {
  if (existsSync(source.paths.invocationsDir)) {
    for (const name of readdirSync(source.paths.invocationsDir)) {
      if (Number.parseInt(name, 10) <= at)
        cpSync(join(source.paths.invocationsDir, name), join(paths.invocationsDir, name), { recursive: true });
    }
  }
  for (const event of events) {
    if (event.type !== 'ACTION_RESULT' || event.execution_ref === undefined) continue;
    const from = join(source.paths.toolExecutionsDir, event.execution_ref);
    if (existsSync(from)) cpSync(from, join(paths.toolExecutionsDir, event.execution_ref), { recursive: true });
  }
}

function withoutEnvelope(event: JournalEvent): NewJournalEvent {
  const { seq: _seq, ...rest } = event;
  return rest as NewJournalEvent;
}

/**
 * Writes the fork's run: ENGINE_START with `forked_from`, the recorded events through iteration `at`,
 * and an ENGINE_END that leaves it INTERRUPTED, so that continuing it is the model's next turn.
 */
function writeForkRun(source: RecordedRun, agentHome: string, workDir: string, runId: string, at: number, forkedFrom: RunOrigin): RunPaths {
  const paths = runPaths(workDir, runId);
  createRunDirectories(paths);
  const lock = acquireRunLock(paths.lock, runId);
  try {
    const events = eventsThrough(source, at);
    copyRecords(source, paths, events, at);
    let usage: TokenUsage | undefined;
    for (const event of events) if (event.type === 'THOUGHT' && event.usage) usage = addTokenUsage(usage, event.usage);
    const now = new Date().toISOString();
    writeMetadata(paths.metadata, {
      schema_version: CONTROL_PLANE_VERSION,
      run_id: runId,
      workspace_id: null,
      agent_name: source.metadata.agent_name,
      status: 'INTERRUPTED',
      created_at: now,
      updated_at: now,
      end_time: now,
      initial_message: source.metadata.initial_message,
      iterations: at,
      max_iterations: source.metadata.max_iterations,
      error: null,
      status_reason: `forked from run ${source.paths.runId} after iteration ${at}`,
      agent_home: agentHome,
      work_dir: workDir,
      ...(usage ? { usage } : {}),
      forked_from: forkedFrom,
      // The live part goes to the endpoint, with the key variable, the recorded run used.
      ...(source.metadata.model_endpoint ? { model_endpoint: source.metadata.model_endpoint } : {}),
    });
    const journal = JournalWriter.open(paths.journal);
    try {
      journal.append({
        type: 'ENGINE_START',
        run_id: runId,
        agent_home: agentHome,
        work_dir: workDir,
        agent_name: source.metadata.agent_name,
        ...(source.start?.model ? { model: source.start.model } : {}),
        engine_version: ENGINE_VERSION,
        forked_from: forkedFrom,
        workspace: workspaceManifest(workDir),
        // The copied events were made by the source's agent version.
        ...(source.start?.agent_fingerprint ? { agent_fingerprint: source.start.agent_fingerprint } : {}),
      });
      for (const event of events) journal.append(withoutEnvelope(event));
      journal.append({
        type: 'ENGINE_END',
        run_id: runId,
        status: 'INTERRUPTED',
        final_iteration: at,
        reason: `forked from run ${source.paths.runId} after iteration ${at}`,
      });
    } finally {
      journal.close();
    }
    writeLatestRunId(workDir, runId);
  } finally {
    lock.release();
  }
  return paths;
}

/** When the rebuild did not start from the recorded run's start state: how to give it one (`--into`). */
function startHint(rebuild: ReplayResult): string {
  const state = rebuild.startState;
  if (state === undefined || state.same) return '';
  const paths = [...state.missing, ...state.changed, ...state.extra];
  return `Its workspace did not start as the recorded run's (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', ...' : ''}): prepare a directory as the run found its own and pass it with --into DIR. `;
}

/**
 * Branches a recorded run after iteration `at`: its workspace is rebuilt in a new one by replaying
 * iterations 1..at with live tools (refused if that replay diverges), the new run's journal holds the
 * recorded events through `at` with `forked_from`, and the run then goes on live: the model's next turn,
 * after `message` when given, with the overrides applied.
 */
export async function forkRun(options: ForkRunOptions): Promise<ForkResult> {
  const source = openRecordedRun(options.source.workDir, options.source.runId);
  const calls = source.thoughts.length;
  if (!Number.isInteger(options.at) || options.at < 0 || options.at > calls) {
    throw new ConfigurationError(
      `The run ${source.paths.runId} has ${calls} iteration${calls === 1 ? '' : 's'}; it cannot be forked at ${options.at}.`,
      {
        code: 'USAGE',
        hint: `Give --at a whole number from 0 (only the task) to ${calls}.`,
      },
    );
  }
  // The rebuild replays the run as it was made: with the overrides it was started with, not the fork's.
  const recorded = recordedOverrides(source);
  const { agent, kept } = loadRecordedAgent(source, {
    agentHome: options.agentHome,
    agentVersions: options.agentVersions,
    overrides: recorded,
  });
  // The live part goes on as the run was made (its --model and --set), with the fork's own overrides on top.
  const set = [...(recorded.set ?? []), ...(options.overrides?.set ?? [])];
  const model = options.overrides?.model ?? recorded.model;
  const live: ConfigOverrides = { ...(model === undefined ? {} : { model }), ...(set.length > 0 ? { set } : {}) };
  const created = options.into === undefined;
  const workDir = created ? createOriginWorkspace(options.originBase ?? agent.home, 'fork').path : resolve(options.into!);
  try {
    // Its model key and endpoint are checked before anything runs: a fork that cannot go on leaves nothing.
    await resolveModel(options, loadAgent(agent.home, { overrides: live }), workDir, source.metadata.model_endpoint);
  } catch (error) {
    if (created) rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  options.prepareWorkspace?.(workDir);
  const forkedFrom: RunOrigin = { run_id: source.paths.runId, work_dir: source.paths.workDir, iteration: options.at };
  let rebuild: ReplayResult | undefined;
  if (options.at > 0) {
    const rebuildId = createRunId();
    const { onLog } = options;
    const through = options.at === 1 ? 'iteration 1' : `iterations 1..${options.at}`;
    onLog?.(`rebuilding the fork's workspace: replaying ${through} of run ${source.paths.runId} in ${workDir}`);
    rebuild = await replayRun({
      source,
      agent,
      into: workDir,
      runId: rebuildId,
      tools: 'live',
      through: options.at,
      ...(options.signal ? { signal: options.signal } : {}),
      // The rebuild stops after iteration N by design, not at a budget: its end is said below, once checked.
      ...(onLog ? { onLog: (line: string) => (line.startsWith(`run ${rebuildId} ended: `) ? undefined : onLog(line)) } : {}),
      ...(options.toolEnv ? { toolEnv: options.toolEnv } : {}),
      ...(options.environment ? { environment: options.environment } : {}),
    });
    if (rebuild.identical) onLog?.(`rebuilt: ${through} replayed as recorded (replay run ${rebuildId})`);
    if (!rebuild.identical) {
      const divergence = rebuild.divergence;
      throw new SystemError(
        `The workspace could not be rebuilt as it was after iteration ${options.at}: ${divergence ? `its replay diverged at ${divergence.summary}` : 'its replay was stopped'}.`,
        {
          code: 'REPLAY_DIVERGED',
          hint: `${divergence?.diff ? `${divergence.diff}\n(- recorded, + replay)\n` : ''}The replay's run is in ${rebuild.replay.paths.runDir}. ${startHint(rebuild)}Fork at an earlier iteration, or restore what changed (a tool's script, context.yaml).`,
        },
      );
    }
  }
  const runId = options.runId ?? createRunId();
  writeForkRun(source, agent.home, workDir, runId, options.at, forkedFrom);
  const {
    source: _source,
    at: _at,
    into: _into,
    runId: _runId,
    agentHome: _agentHome,
    prepareWorkspace: _prepare,
    originBase: _originBase,
    agentVersions: _agentVersions,
    ...engine
  } = options;
  const secretVariables = source.metadata.model_endpoint?.secret_variables;
  const result = await continueRun({
    ...engine,
    overrides: live,
    ...(secretVariables ? { secretVariables } : {}),
    workDir,
    runId,
    origin: { forked_from: forkedFrom },
  });
  return { ...result, forkedFrom, ...(rebuild ? { rebuild } : {}), ...(kept ? { keptAgentHome: agent.home } : {}) };
}
