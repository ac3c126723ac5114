import { describe, expect, it } from 'vitest';
import type { BatchDefinition } from './batch-definition.js';
import { type BatchReport, groupStatistics } from './batch-report.js';
import type { BatchRunRow } from './collect-runs.js';
import { reportCsv, reportText } from './report-format.js';
import { modelTaskMatrix } from './report-matrix.js';

// One model over eight tasks, as a benchmark's verifier grades them: t1-t4 resolved (t4 after running into
// its process limit), t5 and t6 not (the verifier failed them), t7 a verifier error (the grader crashed),
// t8 FAILED (the model's endpoint refused it: a 0 in the rate, not a verification).
type Case = Pick<BatchRunRow, 'status' | 'score' | 'grade_error' | 'limits_hit'>;
const CASES: Record<string, Case> = {
  t1: { status: 'COMPLETED', score: 1, grade_error: null, limits_hit: [] },
  t2: { status: 'COMPLETED', score: 1, grade_error: null, limits_hit: [] },
  t3: { status: 'COMPLETED', score: 1, grade_error: null, limits_hit: [] },
  t4: { status: 'COMPLETED', score: 1, grade_error: null, limits_hit: ['processes'] },
  t5: { status: 'COMPLETED', score: 0, grade_error: null, limits_hit: [] },
  t6: { status: 'COMPLETED', score: 0, grade_error: null, limits_hit: [] },
  t7: { status: 'COMPLETED', score: null, grade_error: 'the grader exited with code 2 and printed no {"score": ...} line', limits_hit: [] },
  t8: { status: 'FAILED', score: null, grade_error: null, limits_hit: ['memory'] },
};
const TASKS = Object.keys(CASES);

function row(task: string): BatchRunRow {
  const found = CASES[task]!;
  return {
    task,
    model: 'm',
    repeat: 1,
    work_dir: `/out/${task}/m/1`,
    run_id: 'run-1',
    iterations: 2,
    prompt_tokens: 10,
    completion_tokens: 5,
    cached_tokens: 0,
    cost: null,
    currency: null,
    duration_ms: 1000,
    passed: found.score === null ? null : found.score === 1,
    reason: null,
    ...found,
  };
}

const rows = TASKS.map(row);

describe('a report of a verified benchmark', () => {
  it('counts passes, failed verifications, verifier errors and limit hits apart, the rate over what was verified', () => {
    const statistics = groupStatistics('m', rows);
    expect(statistics).toMatchObject({
      runs: 8,
      completed: 7,
      failed: 1,
      limit_hits: 2,
      scored: 7,
      passes: 4,
      failed_verifications: 2,
      verifier_errors: 1,
      metric: 'pass_rate',
    });
    // 4 of 7: the verifier error is left out, the FAILED run counts as 0. Wilson 95%: [0.2505, 0.8418].
    expect(statistics.score!.mean).toBeCloseTo(4 / 7, 10);
    expect(statistics.score!.low).toBeCloseTo(0.25046, 4);
    expect(statistics.score!.high).toBeCloseTo(0.84178, 4);
  });

  it('counts a run its own time or layer limit ended (INTERRUPTED, final) as a limit hit, not as unfinished', () => {
    const ended = { ...row('t1'), task: 't9', status: 'INTERRUPTED', score: null, passed: null, limits_hit: ['time'] } as BatchRunRow;
    const waiting = { ...row('t1'), task: 't10', status: 'INTERRUPTED', score: null, passed: null, limits_hit: [] } as BatchRunRow;
    expect(groupStatistics('m', [...rows, ended, waiting])).toMatchObject({ runs: 10, unfinished: 1, limit_hits: 3 });
  });

  it('prints them as columns of the text, and as columns of the CSV', () => {
    const definition = { task_ids: TASKS, models: [{ name: 'm' }], repeat: 1 } as unknown as BatchDefinition;
    const report: BatchReport = {
      out: '/out',
      definition,
      by_model: [groupStatistics('m', rows)],
      by_task: TASKS.map((task) => groupStatistics(task, [row(task)])),
      grader: { hash: '3fd5a609ce24', command: 'sh /tests/test.sh', runs: 7 } as never,
      grader_choice: 'batch',
      graders: [],
      matrix: modelTaskMatrix(rows, ['m'], TASKS),
      comparisons: [],
      runs: rows,
    };
    const lines = reportText(report).split('\n');
    const header = lines.find((line) => line.startsWith('model '))!;
    expect(header.split(/ {2,}/).slice(0, 10)).toEqual([
      'model',
      'runs',
      'completed',
      'failed',
      'unfinished',
      'hit a limit',
      'passed',
      'failed verification',
      'verifier errors',
      'pass rate [95% CI]',
    ]);
    expect(
      lines
        .find((line) => line.startsWith('m '))!
        .split(/ {2,}/)
        .slice(0, 10),
    ).toEqual(['m', '8', '7', '1', '0', '2', '4/7', '2', '1', '57% [25-84]']);
    expect(
      lines
        .find((line) => line.startsWith('t7 '))!
        .split(/ {2,}/)
        .slice(0, 10),
    ).toEqual(['t7', '1', '1', '0', '0', '0', '-', '-', '1', '-']);
    expect(lines).toContain(
      "A verifier error (the grader could not run, timed out, crashed or gave no verdict) is left out of the rate: see the run's grade.json and grades/<hash>.grader/.",
    );

    const csv = reportCsv(report).split('\n');
    expect(csv[0]!.endsWith(',median_duration_ms,limit_hits,passes,failed_verifications,verifier_errors,model,task')).toBe(true);
    expect(csv[1]).toMatch(/^model,m,8,7,1,0,7,pass_rate,0\.5714,0\.2505,0\.8418,2,80,40,0,,,1000,2,4,2,1,,$/);
  });
});
