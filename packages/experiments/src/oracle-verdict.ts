import { join } from 'node:path';
import type { RunStatus } from '@delta/journal';
import { z } from 'zod';
import type { BatchDefinition } from './batch-definition.js';
import { batchRunDirectory } from './batch-layout.js';
import type { Grade } from './grade-schema.js';
import { readGrades, graderHash } from './grade-store.js';
import { ORACLE, ORACLE_TOOL } from './oracle-agent.js';
import { readRunOnDisk } from './run-record.js';

/** Harbor's verifier, the oracle's when the batch has no grader of its own: the task's tests/test.sh at /tests. */
export const HARBOR_VERIFIER = 'bash /tests/test.sh';

/** What `--oracle` records in definition.json (`oracle`): that it ran, its verifier, and the tasks with no solution. */
export const OracleRecord = z.looseObject({
  verifier: z.string(),
  no_oracle: z.array(z.string()),
  ran_at: z.string(),
});
export type OracleRecord = z.infer<typeof OracleRecord>;

/** The oracle's verdict on one task. */
export interface OracleVerdict {
  task: string;
  /**
   * `passed`: the verifier passed the solution; `failed`: it did not (or the oracle's run failed), so the task
   * or its image is broken; `no-oracle`: the task has no solution; `not-run`: its oracle has not finished.
   */
  verdict: 'passed' | 'failed' | 'no-oracle' | 'not-run';
  /** The oracle's run: `OUT/<task>/oracle/1/`. */
  work_dir: string;
  run_id: string | null;
  status: RunStatus | null;
  /** solve.sh's exit code (null when it was killed or did not run). */
  solve_exit_code: number | null;
  /** solve.sh's stdout.log and stderr.log. */
  solve_logs: string | null;
  /** The verifier's grade, and where its output is (grades/<hash>.grader/). */
  score: number | null;
  passed: boolean | null;
  grade_error: string | null;
  verifier_logs: string | null;
  /** Why it failed, in words. */
  reason: string | null;
}

/** The oracle's run directory of a task. */
export function oracleWorkDir(out: string, task: string): string {
  return batchRunDirectory(out, task, ORACLE, 1);
}

function describeGrade(grade: Grade | undefined): string {
  if (grade === undefined) return 'not graded';
  if (grade.error) return `verifier error: ${grade.error}`;
  return `verifier: score ${grade.score}${grade.passed === false ? ' (not passed)' : ''}`;
}

/** The oracle's verdict on `task` from its files alone: its run's journal (solve.sh's exit code) and the verifier's grade. */
export function oracleVerdict(out: string, task: string, record: Pick<OracleRecord, 'verifier' | 'no_oracle'>): OracleVerdict {
  const workDir = oracleWorkDir(out, task);
  const empty: OracleVerdict = {
    task,
    verdict: record.no_oracle.includes(task) ? 'no-oracle' : 'not-run',
    work_dir: workDir,
    run_id: null,
    status: null,
    solve_exit_code: null,
    solve_logs: null,
    score: null,
    passed: null,
    grade_error: null,
    verifier_logs: null,
    reason: null,
  };
  if (empty.verdict === 'no-oracle') return { ...empty, reason: 'the task has no solution (solution/solve.sh)' };
  const found = readRunOnDisk(workDir);
  if (found.kind !== 'run') return empty;
  const result = found.events.find((event) => event.type === 'ACTION_RESULT' && event.tool_name === ORACLE_TOOL) as
    | { exit_code: number | null; action_id: string }
    | undefined;
  const graded = readGrades(found.paths.runDir).get(graderHash(record.verifier));
  // A grade of an earlier run in the same workspace is not this run's.
  const grade = graded?.run_id === found.runId ? graded : undefined;
  const base: OracleVerdict = {
    ...empty,
    run_id: found.runId,
    status: found.status,
    solve_exit_code: result?.exit_code ?? null,
    solve_logs: result === undefined ? null : join(found.paths.runDir, 'io', 'tool_executions', result.action_id),
    score: grade?.score ?? null,
    passed: grade?.passed ?? null,
    grade_error: grade?.error ?? null,
    verifier_logs: grade?.output?.stdout === undefined ? null : join(grade.output.stdout, '..'),
  };
  if (found.status === 'FAILED')
    return { ...base, verdict: 'failed', reason: `the oracle's run failed: ${found.metadata.status_reason ?? ''}` };
  if (found.status !== 'COMPLETED' || grade === undefined) return base;
  const solve = result === undefined ? 'solve.sh did not run' : `solve.sh exited with code ${result.exit_code ?? 'none (killed)'}`;
  if (grade.passed === true) return { ...base, verdict: 'passed', reason: null };
  return { ...base, verdict: 'failed', reason: `${describeGrade(grade)}; ${solve}` };
}

/** Every task's oracle verdict and the verifier, when the batch's oracle ran (`delta batch --oracle`); undefined otherwise. */
export function oracleVerdicts(out: string, definition: BatchDefinition): { verifier: string; tasks: OracleVerdict[] } | undefined {
  const parsed = OracleRecord.safeParse((definition as { oracle?: unknown }).oracle);
  if (!parsed.success) return undefined;
  return { verifier: parsed.data.verifier, tasks: definition.task_ids.map((task) => oracleVerdict(out, task, parsed.data)) };
}
