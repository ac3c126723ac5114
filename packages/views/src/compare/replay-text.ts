import type { ReplayResult } from '@delta/engine';
import { keptVersionLine, replayAgentLine, type FingerprintTools } from '../inspect/agent-version.js';

function describeStart(result: ReplayResult): string {
  const state = result.startState;
  if (!state) return 'the recorded run has no workspace manifest (it was made by an older engine)';
  if (state.same) return `the same as the recorded run's${state.partial ? ' (as far as the bounded manifests go)' : ''}`;
  const list = (label: string, paths: string[]) =>
    paths.length === 0 ? [] : [`${paths.length} ${label} (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', ...' : ''})`];
  return `different from the recorded run's: ${[...list('missing', state.missing), ...list('changed', state.changed), ...list('extra', state.extra)].join(', ')}`;
}

/** `delta replay --json`: the replay as one JSON object, for scripts. */
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

/**
 * `delta replay`'s report for a person: where it started from, the agent, the replay run, then whether it is
 * identical or where it diverged (`keepGoing`: every divergence). `into`: the caller gave the start directory;
 * `ignored`: text matching --ignore was left out of the comparison.
 */
export function replayText(
  result: ReplayResult,
  options: { into: boolean; keepGoing: boolean; ignored: boolean },
  tools: Pick<FingerprintTools, 'describeFingerprintChanges'>,
): string {
  const lines = [`replay of run ${result.source.runId} (${result.source.workDir}), tools ${result.tools}`];
  lines.push(`start state: ${describeStart(result)}`);
  if (result.startState && !result.startState.same && !options.into)
    lines.push('  (to start as the recorded run did, prepare a directory as its workspace was and pass it with --into DIR)');
  lines.push(replayAgentLine(result.agentChanges, tools));
  if (result.keptAgentHome !== undefined) lines.push(keptVersionLine(result.keptAgentHome));
  lines.push(`replay run: ${result.replay.runId} in ${result.replay.workDir} (${result.replay.status})`);
  if (result.identical) {
    lines.push(
      `identical: ${result.iterations} model call${result.iterations === 1 ? '' : 's'}, every request${result.tools === 'live' ? ' and tool result' : ''} as recorded${options.ignored ? ` (text matching --ignore left out)` : ''}`,
    );
  } else if (result.divergence && options.keepGoing) {
    const count = result.divergences.length;
    lines.push(`diverged in ${count} place${count === 1 ? '' : 's'} (--keep-going: every divergence, each after the ones before it):`);
    for (const [index, divergence] of result.divergences.entries()) {
      lines.push(`${index + 1}. ${divergence.summary}`);
      if (divergence.diff !== '') lines.push(divergence.diff);
    }
    lines.push('(- recorded, + replay)');
  } else if (result.divergence) {
    lines.push(`diverged at ${result.divergence.summary}`);
    if (result.divergence.diff !== '') lines.push(result.divergence.diff, '(- recorded, + replay)');
  } else {
    lines.push(`stopped before the end: ${result.replay.reason ?? result.replay.status}`);
  }
  return `${lines.join('\n')}\n`;
}
