import { resolve } from 'node:path';
import { createOriginWorkspace, createRunId, type ActionResultEvent, type JournalEvent, type RunOrigin } from '@delta/journal';
import { agentFingerprint } from './agent-fingerprint.js';
import { continueRun } from './continue-run.js';
import { compareFingerprints, type FingerprintChanges } from './fingerprint-changes.js';
import type { LoadedAgent } from './load-agent.js';
import { type AgentVersions, loadRecordedAgent } from './recorded-agent.js';
import { openRecordedRun, recordedOverrides, recordedResults, resultKey, type RecordedRun } from './recorded-run.js';
import { compareResult, type ReplayDivergence, type ReplayPlaces } from './replay-check.js';
import { ReplayCheck, replayModelClient } from './replay-model-client.js';
import type { EngineOptions, RunResult } from './run-options.js';
import { startRun } from './start-run.js';
import { recordedImage } from './prepare-image.js';
import { compareManifests, workspaceManifest, type ManifestComparison } from './workspace-manifest.js';

export interface ReplayRunOptions extends Pick<EngineOptions, 'signal' | 'onEvent' | 'onLog' | 'toolEnv' | 'environment'> {
  /** The run to replay: its workspace, and its id (default: the workspace's latest run). */
  source: { workDir: string; runId?: string } | RecordedRun;
  /** `live` (default): tools run for real in the replay's workspace. `recorded`: no tool runs, the recorded results are served. */
  tools?: 'live' | 'recorded';
  /** The replay's workspace, prepared by the caller; by default a fresh `<originBase>/replays/R00N` (never among the agent's workspaces). */
  into?: string;
  /** Where a fresh `replays/R00N` is made without `into` (a batch's runs: `OUT/.batch`); default the agent directory. */
  originBase?: string;
  /**
   * Kept copies of the agent's versions (a batch keeps one per version it ran): when the recorded run's agent
   * directory no longer holds the version the run started with, the replay runs the copy of that version.
   */
  agentVersions?: AgentVersions;
  /**
   * Fills the replay's workspace before it starts, as the recorded run found its own (a batch run's task
   * files): called with the workspace's path, before its start state is compared with the recorded one.
   */
  prepareWorkspace?: (workDir: string) => void;
  /**
   * The agent directory; by default the recorded run's, as it is now. Give it for a recording that moved
   * (a copy, a clone): the recorded path may not exist here. It is loaded with the `--model` and `--set`
   * the recorded run was started with.
   */
  agentHome?: string;
  /** The agent, already loaded (instead of `agentHome`): used as it is, with no recorded override applied. */
  agent?: LoadedAgent;
  /** The replay run's id (default: a new one). */
  runId?: string;
  /** Replay only the first N model calls (a fork rebuilds its workspace this way). */
  through?: number;
  /**
   * Volatile text (timestamps, temporary paths) left out of every comparison: each match, in the recorded
   * and the replayed tool results and in the requests that carry them, counts as the same.
   */
  ignore?: readonly RegExp[];
  /** Go on past a divergence and report every one (`divergences`), instead of stopping at the first. */
  keepGoing?: boolean;
}

export interface ReplayResult {
  /** True when every request and tool result equals the recorded one, and the replay made as many calls. */
  identical: boolean;
  /** The first divergence. */
  divergence?: ReplayDivergence;
  /** Every divergence found: the first alone, unless `keepGoing`. */
  divergences: ReplayDivergence[];
  /** How the replay's workspace, as it started, compares with the one the recorded run found (when recorded). */
  startState?: ManifestComparison;
  /**
   * How the replay's agent differs from the one the recorded run started with, file by file; absent when
   * the recorded run's engine did not record its agent's version.
   */
  agentChanges?: FingerprintChanges;
  /** The kept copy of the version the run used, when the replay ran it (the agent directory holds another version now). */
  keptAgentHome?: string;
  /** Model calls replayed. */
  iterations: number;
  tools: 'live' | 'recorded';
  source: { workDir: string; runId: string };
  /** The replay's own run: its journal is in `replay.paths`. */
  replay: RunResult;
}

/** The recorded run's user messages, each with the number of model calls that answered it (a `delta continue -m` starts the next). */
function segments(source: RecordedRun, through: number): { message: string; calls: number }[] {
  const result: { message: string; calls: number }[] = [];
  let total = 0;
  for (const event of source.events) {
    if (event.type === 'USER_MESSAGE') result.push({ message: event.content, calls: 0 });
    else if (event.type === 'THOUGHT' && result.length > 0 && total < through) {
      result.at(-1)!.calls += 1;
      total += 1;
    }
  }
  // A message no call answered within `through` is not sent: the replay stops where it was asked to.
  return result.filter((segment, index) => index === 0 || segment.calls > 0);
}

/**
 * Replays a recorded run as a new run of its own (ENGINE_START and metadata.json say `replay_of`): the
 * recorded model responses are served in order, each request the engine builds is checked against the
 * recorded one, and, with live tools, each tool result too. It stops at the first divergence.
 */
export async function replayRun(options: ReplayRunOptions): Promise<ReplayResult> {
  const source = 'events' in options.source ? options.source : openRecordedRun(options.source.workDir, options.source.runId);
  const tools = options.tools ?? 'live';
  const loaded = options.agent
    ? { agent: options.agent, kept: false }
    : loadRecordedAgent(source, {
        agentHome: options.agentHome,
        agentVersions: options.agentVersions,
        overrides: recordedOverrides(source),
      });
  const { agent } = loaded;
  const workDir =
    options.into === undefined ? createOriginWorkspace(options.originBase ?? agent.home, 'replay').path : resolve(options.into);
  options.prepareWorkspace?.(workDir);
  const recordedStart = source.start?.workspace;
  const startState = recordedStart ? compareManifests(recordedStart, workspaceManifest(workDir)) : undefined;
  const recordedAgent = source.start?.agent_fingerprint;
  const agentChanges = recordedAgent ? compareFingerprints(recordedAgent, agentFingerprint(agent)) : undefined;
  const runId = options.runId ?? createRunId();
  const places: ReplayPlaces = {
    source: {
      workDir: source.start?.work_dir ?? source.paths.workDir,
      runId: source.paths.runId,
      agentHome: source.start?.agent_home ?? source.metadata.agent_home,
    },
    replay: { workDir, runId, agentHome: agent.home },
  };
  const through = Math.min(options.through ?? source.thoughts.length, source.thoughts.length);
  // Global copies: a mask replaces every match, whatever flags it was given with.
  const masks = (options.ignore ?? []).map(
    (pattern) => new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`),
  );
  const check = new ReplayCheck(masks, options.keepGoing === true);
  const results = recordedResults(source);
  const replayOf: RunOrigin = { run_id: source.paths.runId, work_dir: source.paths.workDir, tools };
  const onEvent = (event: JournalEvent) => {
    options.onEvent?.(event);
    if (tools === 'live' && event.type === 'ACTION_RESULT')
      checkResult(check, results.get(resultKey(event.iteration, event.action_id)), event, places);
  };
  // The image the recorded run used, at its digest, as its tools saw it.
  const image = recordedImage(source.events);
  const common = {
    ...(image ? { sandbox: { image: image.reference, workdir: image.workdir, imageDigest: image.digest } } : {}),
    model: replayModelClient(source, places, check),
    onEvent,
    origin: { replay_of: replayOf },
    askHuman: recordedAnswers(source),
    ...(tools === 'recorded'
      ? { recordedTools: (call: { id: string }, iteration: number) => results.get(resultKey(iteration, call.id)) }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onLog ? { onLog: options.onLog } : {}),
    ...(options.toolEnv ? { toolEnv: options.toolEnv } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
    // A models file's key variables, as the recorded run kept them from its tools.
    ...(source.metadata.model_endpoint?.secret_variables ? { secretVariables: source.metadata.model_endpoint.secret_variables } : {}),
  };
  const [first, ...later] = segments(source, through);
  let replay = await startRun({
    ...common,
    agent,
    workDir,
    runId,
    message: first?.message ?? source.metadata.initial_message,
    maxIterations: Math.max(1, first?.calls ?? 1),
  });
  for (const segment of later) {
    if (check.stopped || replay.status === 'FAILED' || options.signal?.aborted) break;
    replay = await continueRun({ ...common, agent, workDir, runId, message: segment.message, maxIterations: segment.calls });
  }
  if (!check.stopped && check.served < through && !options.signal?.aborted) {
    check.diverge({
      iteration: check.served + 1,
      what: 'missing_calls',
      summary: `the replay ended ${replay.status} after ${check.served} model call${check.served === 1 ? '' : 's'}; the recorded run made ${through}`,
      diff: replay.reason ? `+ ${replay.reason}` : '',
    });
  }
  // A replay run that FAILED where the recorded one went on (a record refused, a full disk) is no identical replay.
  const recordedFailed = through === source.thoughts.length && source.metadata.status === 'FAILED';
  if (!check.stopped && !options.signal?.aborted && replay.status === 'FAILED' && !recordedFailed) {
    check.diverge({
      iteration: check.served,
      what: 'status',
      summary: `the end: the replay run FAILED (${replay.reason ?? 'no reason given'}); the recorded run did not fail there`,
      diff: '',
    });
  }
  return {
    identical: check.divergence === undefined && !options.signal?.aborted,
    ...(check.divergence ? { divergence: check.divergence } : {}),
    divergences: check.divergences,
    ...(startState ? { startState } : {}),
    ...(agentChanges ? { agentChanges } : {}),
    ...(loaded.kept ? { keptAgentHome: agent.home } : {}),
    iterations: check.served,
    tools,
    source: { workDir: source.paths.workDir, runId: source.paths.runId },
    replay,
  };
}

function checkResult(check: ReplayCheck, recorded: ActionResultEvent | undefined, found: ActionResultEvent, places: ReplayPlaces): void {
  if (recorded === undefined) {
    check.diverge({
      iteration: found.iteration,
      action: { id: found.action_id, name: found.tool_name },
      what: 'observation',
      summary: `iteration ${found.iteration}, action ${found.action_id} (${found.tool_name}): the recorded run has no result for this call`,
      diff: '',
    });
    return;
  }
  const divergence = compareResult(recorded, found, places, check.masks);
  if (divergence) check.diverge(divergence);
}

/** ask_human, answered as the recorded run's human answered it (by action id). */
function recordedAnswers(source: RecordedRun): EngineOptions['askHuman'] {
  const answers = new Map<string, string>();
  for (const event of source.events) if (event.type === 'HUMAN_INPUT_RECEIVED') answers.set(event.action_id, event.response);
  return async (request) => answers.get(request.action_id) ?? '';
}
