import type { RunDiff } from '@delta/engine';
import type { RunPaths } from '@delta/journal';
import { diffAgentLine, diffSettingsLine, type FingerprintTools } from '../inspect/agent-version.js';

function summary(diff: RunDiff): string[] {
  const lines = [`iterations: ${diff.iterations.a} (A), ${diff.iterations.b} (B); ${diff.sameIterations} the same`];
  const counts = new Map<string, number>();
  for (const difference of diff.differences) counts.set(difference.what, (counts.get(difference.what) ?? 0) + 1);
  if (counts.size > 0) lines.push(`differences: ${[...counts].map(([what, count]) => `${count} ${what.replaceAll('_', ' ')}`).join(', ')}`);
  return lines;
}

/** `delta diff`'s report for a person: the two runs, their agents and settings, the first divergence, the counts. */
export function diffText(
  a: Pick<RunPaths, 'runId' | 'workDir'>,
  b: Pick<RunPaths, 'runId' | 'workDir'>,
  diff: RunDiff,
  tools: Pick<FingerprintTools, 'describeFingerprintChanges'>,
): string {
  const lines = [`A: run ${a.runId} (${a.workDir})`, `B: run ${b.runId} (${b.workDir})`];
  lines.push(diffAgentLine(diff.agentChanges, tools), diffSettingsLine(diff.settingsChanges));
  if (diff.first) {
    lines.push(`first divergence: ${diff.first.summary}`);
    if (diff.first.diff !== '') lines.push(diff.first.diff, '(- A, + B)');
  } else {
    lines.push('the same: every iteration has the same text, tool calls and observations');
  }
  lines.push(...summary(diff));
  return `${lines.join('\n')}\n`;
}
