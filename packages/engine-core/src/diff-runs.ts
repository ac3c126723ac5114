import type { ActionResultEvent, AgentFingerprint, JournalEvent, ThoughtEvent } from '@delta/journal';
import { compareFingerprints, type FingerprintChanges } from './fingerprint-changes.js';
import { compareRunSettings, type SettingChange } from './run-settings-diff.js';
import { shortDiff } from './short-diff.js';

/** One iteration of a run, as diff compares it. */
interface Iteration {
  thought: ThoughtEvent;
  results: ActionResultEvent[];
}

/** One difference between two runs at one iteration. */
export interface IterationDifference {
  iteration: number;
  /** What differs: the model's text, its tool calls, a call's observation, the tokens, or an iteration only one run has. */
  what: 'content' | 'tool_calls' | 'observation' | 'tokens' | 'only_in_a' | 'only_in_b';
  /** The action whose observation differs. */
  action?: string;
  summary: string;
  /** A short diff (`-` run A, `+` run B); empty when there is nothing to show. */
  diff: string;
}

export interface RunDiff {
  /** True when every iteration's text, tool calls and observations are the same (tokens aside). */
  same: boolean;
  iterations: { a: number; b: number };
  /** The first difference (tokens aside), if any. */
  first?: IterationDifference;
  /** Every difference, in order of iteration. */
  differences: IterationDifference[];
  /** Iterations whose text, tool calls and observations are all the same. */
  sameIterations: number;
  /**
   * How run B's agent differs from run A's, file by file (each run's first ENGINE_START fingerprint);
   * absent when either run's engine did not record one. Not counted in `same`.
   */
  agentChanges?: FingerprintChanges;
  /**
   * The settings the two runs were started with where they differ: model, endpoint, `llm:` parameters and
   * prices, iteration budget (empty when the same); absent when either run's engine did not record them.
   * Not counted in `same`.
   */
  settingsChanges?: SettingChange[];
}

function fingerprintOfRun(events: readonly JournalEvent[]): AgentFingerprint | undefined {
  const start = events.find((event) => event.type === 'ENGINE_START');
  return start?.type === 'ENGINE_START' ? start.agent_fingerprint : undefined;
}

function iterationsOf(events: readonly JournalEvent[]): Iteration[] {
  const iterations: Iteration[] = [];
  for (const event of events) {
    if (event.type === 'THOUGHT') iterations.push({ thought: event, results: [] });
    else if (event.type === 'ACTION_RESULT') iterations.findLast((item) => item.thought.iteration === event.iteration)?.results.push(event);
  }
  return iterations;
}

function callsText(thought: ThoughtEvent): string {
  return thought.tool_calls.map((call) => `${call.name}(${call.arguments})`).join('\n');
}

function compareIteration(a: Iteration, b: Iteration): IterationDifference[] {
  const iteration = a.thought.iteration;
  const differences: IterationDifference[] = [];
  const contentA = a.thought.content ?? '';
  const contentB = b.thought.content ?? '';
  if (contentA !== contentB) {
    differences.push({
      iteration,
      what: 'content',
      summary: `iteration ${iteration}: the model's text differs`,
      diff: shortDiff(contentA, contentB),
    });
  }
  const callsA = callsText(a.thought);
  const callsB = callsText(b.thought);
  if (callsA !== callsB) {
    differences.push({
      iteration,
      what: 'tool_calls',
      summary: `iteration ${iteration}: the tool calls differ`,
      diff: shortDiff(callsA, callsB),
    });
  } else {
    // Same calls: compare each call's observation, by position (call ids are the model's, and may differ).
    a.results.forEach((result, index) => {
      const other = b.results[index];
      if (other === undefined || other.observation_content === result.observation_content) return;
      differences.push({
        iteration,
        what: 'observation',
        action: `${result.action_id} (${result.tool_name})`,
        summary: `iteration ${iteration}, action ${result.action_id} (${result.tool_name}): the observation differs`,
        diff: shortDiff(result.observation_content, other.observation_content),
      });
    });
  }
  const tokensA = a.thought.usage ? `${a.thought.usage.prompt_tokens} in, ${a.thought.usage.completion_tokens} out` : 'not reported';
  const tokensB = b.thought.usage ? `${b.thought.usage.prompt_tokens} in, ${b.thought.usage.completion_tokens} out` : 'not reported';
  if (tokensA !== tokensB) {
    differences.push({ iteration, what: 'tokens', summary: `iteration ${iteration}: tokens ${tokensA} (A), ${tokensB} (B)`, diff: '' });
  }
  return differences;
}

/**
 * Compares two runs iteration by iteration: the model's text, its tool calls, their observations and
 * the tokens. Pure: it reads only the two runs' events.
 */
export function diffRuns(a: readonly JournalEvent[], b: readonly JournalEvent[]): RunDiff {
  const left = iterationsOf(a);
  const right = iterationsOf(b);
  const differences: IterationDifference[] = [];
  let sameIterations = 0;
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const x = left[index];
    const y = right[index];
    if (x && y) {
      const found = compareIteration(x, y);
      if (found.every((difference) => difference.what === 'tokens')) sameIterations += 1;
      differences.push(...found);
    } else if (x) {
      differences.push({
        iteration: x.thought.iteration,
        what: 'only_in_a',
        summary: `iteration ${x.thought.iteration} is only in run A`,
        diff: '',
      });
    } else if (y) {
      differences.push({
        iteration: y.thought.iteration,
        what: 'only_in_b',
        summary: `iteration ${y.thought.iteration} is only in run B`,
        diff: '',
      });
    }
  }
  const first = differences.find((difference) => difference.what !== 'tokens');
  const agentA = fingerprintOfRun(a);
  const agentB = fingerprintOfRun(b);
  const settingsChanges = compareRunSettings(a, b);
  return {
    same: first === undefined,
    iterations: { a: left.length, b: right.length },
    ...(first ? { first } : {}),
    differences,
    sameIterations,
    ...(agentA && agentB ? { agentChanges: compareFingerprints(agentA, agentB) } : {}),
    ...(settingsChanges ? { settingsChanges } : {}),
  };
}
