import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigurationError, parseJson, SystemError } from '@delta/errors';
import type { ChatCompletion } from '@delta/model-wire';
import type { ConfigOverrides } from './config-overrides.js';
import {
  invocationDirectory,
  isRunId,
  readInvocationRequestBytes,
  readJournal,
  readLatestRunId,
  readMetadata,
  readRunRecord,
  REQUEST_DELTA_FILE,
  REQUEST_FILE,
  RequestDelta,
  runPaths,
  type ActionResultEvent,
  type EngineStartEvent,
  type JournalEvent,
  type RunMetadata,
  type RunPaths,
  type ThoughtEvent,
} from '@delta/journal';
import { restoreStoredTexts } from './response-record.js';

/** The bound of a recorded response or request read back (a model answer is capped far below this). */
const RESPONSE_RECORD_MAX_BYTES = 512 * 1024 * 1024;

/** A run on disk, read for replaying, forking or comparing: its events and where its records are. */
export interface RecordedRun {
  paths: RunPaths;
  metadata: RunMetadata;
  events: JournalEvent[];
  /** The THOUGHTs, in order: one per model call that succeeded. */
  thoughts: ThoughtEvent[];
  /** The first ENGINE_START: how the run began (its workspace manifest, its configuration). */
  start: EngineStartEvent | undefined;
}

function noRun(message: string, hint: string): ConfigurationError {
  return new ConfigurationError(message, { code: 'NO_RUN', hint });
}

/** Opens a recorded run by workspace and id (default: the workspace's latest run). */
export function openRecordedRun(workDir: string, runId?: string): RecordedRun {
  const work = resolve(workDir);
  const id = runId ?? readLatestRunId(work);
  if (id === undefined) throw noRun(`${work} holds no runs.`, 'Name the workspace of the run with -w (and the run with --run-id).');
  if (!isRunId(id)) throw noRun(`"${id}" is not a run id.`, '`delta list -w <workspace>` shows the runs of a workspace.');
  const paths = runPaths(work, id);
  if (!existsSync(paths.journal))
    throw noRun(`There is no run "${id}" in ${work}.`, '`delta list -w <workspace>` shows the runs of a workspace.');
  const events = readJournal(paths.journal, { tolerateTornTail: true });
  return {
    paths,
    metadata: readMetadata(paths.metadata),
    events,
    thoughts: events.filter((event): event is ThoughtEvent => event.type === 'THOUGHT'),
    start: events.find((event): event is EngineStartEvent => event.type === 'ENGINE_START'),
  };
}

/** Opens a run named by its directory (`<workspace>/.delta/<run_id>`) or by a workspace (its latest run). */
export function openRecordedRunAt(path: string): RecordedRun {
  const absolute = resolve(path);
  const parent = resolve(absolute, '..');
  if (existsSync(join(absolute, 'journal.jsonl')) && parent.endsWith('.delta')) {
    return openRecordedRun(resolve(parent, '..'), absolute.slice(parent.length + 1));
  }
  return openRecordedRun(absolute);
}

/**
 * The recorded run's agent directory, checked: a recording copied or cloned from another machine names
 * a directory that is not here, and a replay must not load it from wherever it now happens to be.
 */
export function recordedAgentHome(run: RecordedRun): string {
  const home = run.metadata.agent_home;
  if (!existsSync(home)) {
    throw new ConfigurationError(`The run ${run.paths.runId} was made by the agent in ${home}, which is not here.`, {
      code: 'AGENT_NOT_FOUND',
      hint: 'A recording copied or cloned from elsewhere: name its agent directory with --agent DIR.',
    });
  }
  return home;
}

/**
 * The `--model` and `--set` the recorded run was started with (ENGINE_START's `config.overrides`), so that
 * a replay builds the requests the run built. Each is recorded as it was given: `--model NAME`, `--set K=V`.
 */
export function recordedOverrides(run: RecordedRun): ConfigOverrides {
  const given = run.start?.config?.overrides;
  const sources = Array.isArray(given) ? given.filter((item): item is string => typeof item === 'string') : [];
  const set = sources.filter((item) => item.startsWith('--set ')).map((item) => item.slice('--set '.length));
  const model = sources.findLast((item) => item.startsWith('--model '))?.slice('--model '.length);
  return { ...(model === undefined ? {} : { model }), ...(set.length > 0 ? { set } : {}) };
}

/** The model's recorded answer to a THOUGHT's call (io/invocations/<ref>/response.json). */
export function recordedResponse(run: RecordedRun, thought: ThoughtEvent): ChatCompletion {
  const file = join(invocationDirectory(run.paths, thought.llm_invocation_ref), 'response.json');
  if (!existsSync(file)) {
    throw new SystemError(`The recorded run has no response for iteration ${thought.iteration}: ${file} is missing.`, {
      code: 'REPLAY_RECORD_MISSING',
      file,
      hint: 'A run can be replayed only with its io/invocations/ records.',
    });
  }
  const bytes = readRunRecord(file, RESPONSE_RECORD_MAX_BYTES) ?? Buffer.alloc(0);
  return restoreStoredTexts(parseJson(bytes.toString('utf8'), file), thought) as ChatCompletion;
}

/**
 * Reads the requests of a run's invocations in order. A request recorded as a delta of the one before
 * it is rebuilt from that one, held here, so a long run is read in one pass, not by walking each chain.
 */
export class RecordedRequests {
  private last: { id: string; bytes: Buffer } | undefined;

  constructor(private readonly paths: RunPaths) {}

  read(invocationId: string): Buffer {
    const dir = invocationDirectory(this.paths, invocationId);
    let bytes: Buffer;
    if (existsSync(join(dir, REQUEST_FILE))) {
      bytes = readRunRecord(join(dir, REQUEST_FILE), RESPONSE_RECORD_MAX_BYTES) ?? Buffer.alloc(0);
    } else {
      const file = join(dir, REQUEST_DELTA_FILE);
      const delta = existsSync(file)
        ? RequestDelta.safeParse(parseJson(readRunRecord(file, RESPONSE_RECORD_MAX_BYTES)?.toString('utf8') ?? '', file))
        : undefined;
      const base = this.last;
      bytes =
        delta?.success && base?.id === delta.data.base && delta.data.prefix_bytes <= base.bytes.length
          ? Buffer.concat([base.bytes.subarray(0, delta.data.prefix_bytes), Buffer.from(delta.data.suffix, 'utf8')])
          : readInvocationRequestBytes(this.paths, invocationId);
    }
    this.last = { id: invocationId, bytes };
    return bytes;
  }
}

/** The recorded ACTION_RESULT of each tool call, by iteration and action id. */
export function recordedResults(run: RecordedRun): Map<string, ActionResultEvent> {
  const results = new Map<string, ActionResultEvent>();
  for (const event of run.events) {
    if (event.type === 'ACTION_RESULT') results.set(resultKey(event.iteration, event.action_id), event);
  }
  return results;
}

export function resultKey(iteration: number, actionId: string): string {
  return `${iteration}\u0000${actionId}`;
}
