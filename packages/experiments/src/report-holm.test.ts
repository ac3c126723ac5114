import { describe, expect, it } from 'vitest';
import { modelComparisons } from './batch-report.js';
import type { BatchRunRow } from './collect-runs.js';
import { comparisonsCsv, comparisonsText } from './report-comparison-format.js';
import { modelTaskMatrix } from './report-matrix.js';

// Four models over ten tasks, one run each: a passes all, b t1-t2, c t1-t9; d has not run (no score at all).
const TASKS = Array.from({ length: 10 }, (_, index) => `t${index + 1}`);
const PASSES: Record<string, number> = { a: 10, b: 2, c: 9 };

function row(task: string, model: string): BatchRunRow {
  const passes = PASSES[model];
  const score = passes === undefined ? null : TASKS.indexOf(task) < passes ? 1 : 0;
  return {
    task,
    model,
    repeat: 1,
    work_dir: `/out/${task}/${model}/1`,
    run_id: passes === undefined ? null : 'run-1',
    status: passes === undefined ? 'NOT_STARTED' : 'COMPLETED',
    iterations: 1,
    prompt_tokens: 0,
    completion_tokens: 0,
    cached_tokens: 0,
    cost: null,
    currency: null,
    duration_ms: null,
    score,
    passed: score === null ? null : score === 1,
    grade_error: null,
    reason: null,
    limits_hit: [],
  };
}

const models = ['a', 'b', 'c', 'd'];
const matrix = modelTaskMatrix(
  TASKS.flatMap((task) => models.map((model) => row(task, model))),
  models,
  TASKS,
);

describe('comparisons of more than two models', () => {
  const comparisons = modelComparisons(matrix);
  const find = (a: string, b: string) => comparisons.find((comparison) => comparison.a === a && comparison.b === b)!;

  it('leave the p-value out (null, shown as -) on 0 common tasks', () => {
    for (const other of ['a', 'b', 'c']) expect(find(other, 'd')).toMatchObject({ tasks: 0, p_value: null, p_holm: null });
    const text = comparisonsText(comparisons, matrix.metric, 'grader 0123456789ab');
    expect(text).toMatch(/^a +d +0 +- +- +- +0 +0 +- +- +-$/m);
    expect(text).not.toMatch(/^a +d .* 1$/m);
  });

  it("give Holm's adjusted p-values beside the raw ones, and say how many comparisons were made", () => {
    // Raw: a-b 8 discordant of 8, p = 2/256; b-c 7 of 7, p = 2/128; a-c 1 of 1, p = 1. Three tests:
    // Holm: 3 x 0.0078125 = 0.0234375; max(that, 2 x 0.015625) = 0.03125; max(that, 1 x 1) = 1.
    expect(find('a', 'b')).toMatchObject({ p_value: 0.0078125, p_holm: 0.0234375 });
    expect(find('b', 'c')).toMatchObject({ p_value: 0.015625, p_holm: 0.03125 });
    expect(find('a', 'c')).toMatchObject({ p_value: 1, p_holm: 1 });
    const text = comparisonsText(comparisons, matrix.metric, 'grader 0123456789ab');
    expect(text).toMatch(/ test +p +p \(Holm\)$/m);
    expect(text).toMatch(/^a +b +10 .* McNemar exact +0\.007813 +0\.02344$/m);
    expect(text).toContain("3 comparisons made: p (Holm) is each p adjusted by Holm's method for all 3");
    const csv = comparisonsCsv(comparisons).split('\n');
    expect(csv[0]).toBe('a,b,tasks,mean_a,mean_b,difference,ci_low,ci_high,a_better,b_better,ties,test,p_value,p_holm');
    expect(csv[1]).toMatch(/^a,b,10,.*,mcnemar_exact,0\.0078125,0\.0234375$/);
    expect(csv[3]).toMatch(/^a,d,0,,,,,,0,0,0,mcnemar_exact,,$/);
  });

  it('adjust nothing when two models make one comparison', () => {
    const pair = modelComparisons(
      modelTaskMatrix(
        TASKS.flatMap((task) => ['a', 'b'].map((model) => row(task, model))),
        ['a', 'b'],
        TASKS,
      ),
    );
    expect(pair[0]).toMatchObject({ p_value: 0.0078125, p_holm: null });
    expect(comparisonsText(pair, 'pass_rate', 'grader 0123456789ab')).not.toContain('Holm');
  });
});
