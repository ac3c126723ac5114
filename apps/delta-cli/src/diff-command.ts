import type { RunDiff } from '@delta/engine';
import { diffAgentLine, diffSettingsLine } from './inspect/agent-version.js';

export interface DiffFlags {
  json?: boolean;
}

function summary(diff: RunDiff): string[] {
  const lines = [`iterations: ${diff.iterations.a} (A), ${diff.iterations.b} (B); ${diff.sameIterations} the same`];
  const counts = new Map<string, number>();
  for (const difference of diff.differences) counts.set(difference.what, (counts.get(difference.what) ?? 0) + 1);
  if (counts.size > 0) lines.push(`differences: ${[...counts].map(([what, count]) => `${count} ${what.replaceAll('_', ' ')}`).join(', ')}`);
  return lines;
}

/** `delta diff RUN_A RUN_B`: compares two runs iteration by iteration; exit 0 when they are the same (tokens aside), 1 otherwise. */
export async function diffCommand(runA: string, runB: string, flags: DiffFlags): Promise<number> {
  const engine = await import('@delta/engine');
  const a = engine.openRecordedRunAt(runA);
  const b = engine.openRecordedRunAt(runB);
  const diff = engine.diffRuns(a.events, b.events);
  if (flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ a: { work_dir: a.paths.workDir, run_id: a.paths.runId }, b: { work_dir: b.paths.workDir, run_id: b.paths.runId }, ...diff })}\n`,
    );
    return diff.same ? 0 : 1;
  }
  const write = (text: string) => process.stdout.write(text);
  write(`A: run ${a.paths.runId} (${a.paths.workDir})\nB: run ${b.paths.runId} (${b.paths.workDir})\n`);
  write(`${diffAgentLine(diff.agentChanges, engine)}\n`);
  write(`${diffSettingsLine(diff.settingsChanges)}\n`);
  if (diff.first) {
    write(`first divergence: ${diff.first.summary}\n`);
    if (diff.first.diff !== '') write(`${diff.first.diff}\n(- A, + B)\n`);
  } else {
    write('the same: every iteration has the same text, tool calls and observations\n');
  }
  for (const line of summary(diff)) write(`${line}\n`);
  return diff.same ? 0 : 1;
}
