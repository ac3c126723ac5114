import { diffText } from '@delta/views';

export interface DiffFlags {
  json?: boolean;
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
  } else {
    process.stdout.write(diffText(a.paths, b.paths, diff, engine));
  }
  return diff.same ? 0 : 1;
}
