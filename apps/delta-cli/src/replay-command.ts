import type { ReplayResult } from '@delta/engine';
import { withEngineSession } from './engine-session.js';
import { keptVersionLine, replayAgentLine } from './inspect/agent-version.js';
import { ignorePatterns } from './replay-flags.js';
import { parseRunIdFlag } from './run-id-flag.js';
import { usageError } from './usage-error.js';
import type { RunLocation } from './inspect/locate-run.js';

export interface ReplayFlags extends RunLocation {
  agent?: string;
  into?: string;
  tools?: string;
  json?: boolean;
  quiet?: boolean;
  ignore?: string | readonly string[];
  keepGoing?: boolean;
}

function parseTools(value: string | undefined): 'live' | 'recorded' {
  if (value === undefined || value === 'live' || value === 'recorded') return value ?? 'live';
  throw usageError(
    `--tools must be live or recorded, got "${value}".`,
    'live runs the tools again; recorded serves their recorded results.',
  );
}

function describeStart(result: ReplayResult): string {
  const state = result.startState;
  if (!state) return 'the recorded run has no workspace manifest (it was made by an older engine)';
  if (state.same) return `the same as the recorded run's${state.partial ? ' (as far as the bounded manifests go)' : ''}`;
  const list = (label: string, paths: string[]) =>
    paths.length === 0 ? [] : [`${paths.length} ${label} (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', ...' : ''})`];
  return `different from the recorded run's: ${[...list('missing', state.missing), ...list('changed', state.changed), ...list('extra', state.extra)].join(', ')}`;
}

/** The replay as one JSON object, for scripts. */
export function replayObject(result: ReplayResult): Record<string, unknown> {
  return {
    identical: result.identical,
    divergence: result.divergence ?? null,
    divergences: result.divergences,
    iterations: result.iterations,
    tools: result.tools,
    start_state: result.startState ?? null,
    agent_changes: result.agentChanges ?? null,
    kept_agent: result.keptAgentHome ?? null,
    source: { work_dir: result.source.workDir, run_id: result.source.runId },
    replay: { work_dir: result.replay.workDir, run_id: result.replay.runId, status: result.replay.status },
  };
}

/** `delta replay`: re-executes a recorded run and says whether it is identical, or where it first diverged. */
export async function replayCommand(flags: ReplayFlags): Promise<number> {
  const tools = parseTools(flags.tools === undefined ? undefined : String(flags.tools));
  const runId = flags.runId === undefined ? undefined : parseRunIdFlag(flags.runId);
  const ignore = ignorePatterns(flags.ignore);
  const engine = await import('@delta/engine');
  const source = engine.openRecordedRun(flags.workDir ?? '.', runId);
  // A batch run: the agent version it used (kept by the batch), and without --into its task's start state, under OUT.
  const batch = (await import('@delta/experiments')).batchRunOrigin(source.paths.workDir);
  const result = await withEngineSession(
    false,
    (session) =>
      engine.replayRun({
        source,
        tools,
        ignore,
        keepGoing: flags.keepGoing === true,
        ...(flags.agent === undefined ? {} : { agentHome: String(flags.agent) }),
        signal: session.signal,
        toolEnv: session.toolEnv,
        onLog: session.onLog,
        ...(flags.into === undefined ? {} : { into: String(flags.into) }),
        ...(batch ? { agentVersions: batch.agentVersions } : {}),
        ...(batch && flags.into === undefined ? { originBase: batch.originBase, prepareWorkspace: batch.prepareWorkspace } : {}),
      }),
    { quiet: flags.quiet === true || flags.json === true },
  );
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(replayObject(result))}\n`);
  } else {
    const write = (text: string) => process.stdout.write(text);
    write(`replay of run ${result.source.runId} (${result.source.workDir}), tools ${result.tools}\n`);
    write(`start state: ${describeStart(result)}\n`);
    if (result.startState && !result.startState.same && flags.into === undefined)
      write('  (to start as the recorded run did, prepare a directory as its workspace was and pass it with --into DIR)\n');
    write(`${replayAgentLine(result.agentChanges, engine)}\n`);
    if (result.keptAgentHome !== undefined) write(`${keptVersionLine(result.keptAgentHome)}\n`);
    write(`replay run: ${result.replay.runId} in ${result.replay.workDir} (${result.replay.status})\n`);
    if (result.identical) {
      write(
        `identical: ${result.iterations} model call${result.iterations === 1 ? '' : 's'}, every request${result.tools === 'live' ? ' and tool result' : ''} as recorded${ignore.length > 0 ? ` (text matching --ignore left out)` : ''}\n`,
      );
    } else if (result.divergence && flags.keepGoing === true) {
      const count = result.divergences.length;
      write(`diverged in ${count} place${count === 1 ? '' : 's'} (--keep-going: every divergence, each after the ones before it):\n`);
      for (const [index, divergence] of result.divergences.entries()) {
        write(`${index + 1}. ${divergence.summary}\n`);
        if (divergence.diff !== '') write(`${divergence.diff}\n`);
      }
      write('(- recorded, + replay)\n');
    } else if (result.divergence) {
      write(`diverged at ${result.divergence.summary}\n`);
      if (result.divergence.diff !== '') write(`${result.divergence.diff}\n(- recorded, + replay)\n`);
    } else {
      write(`stopped before the end: ${result.replay.reason ?? result.replay.status}\n`);
    }
  }
  return result.identical ? 0 : 1;
}
