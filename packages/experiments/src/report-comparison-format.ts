import type { BatchComparison } from './compare-batches.js';
import type { PairedComparison } from './paired-comparison.js';
import type { ModelTaskMatrix } from './report-matrix.js';
import { graderLine, scoredBy as sideScoredBy } from './report-grader-format.js';

/** A number as a report prints it: `digits` decimals at most, no float noise (0.015981, not 0.01598100000000001). */
export function rounded(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/** Columns padded to their widest cell, two spaces apart. */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function cellText(matrix: ModelTaskMatrix, task: string, model: string): string {
  const cell = matrix.cells.find((candidate) => candidate.task === task && candidate.model === model);
  if (cell === undefined || cell.value === null) return '-';
  return cell.passes !== null ? `${cell.passes}/${cell.scored}` : cell.value.toFixed(2);
}

/**
 * The matrix for a person: a row per task, a column per model; `passes/scored` runs, or the mean score.
 * `scoredBy` names the grader (or graders) the scores come from.
 */
export function matrixText(matrix: ModelTaskMatrix, scoredBy: string): string {
  const heading =
    matrix.metric === 'mean_score'
      ? `Mean score per task and model (${scoredBy}):`
      : `Passes per task and model (${scoredBy}; passed/scored runs; a FAILED run counts as a fail):`;
  return [
    heading,
    columns([
      ['task', ...matrix.models],
      ...matrix.tasks.map((task) => [task, ...matrix.models.map((model) => cellText(matrix, task, model))]),
    ]),
  ].join('\n');
}

function valueText(value: number | null, rate: boolean): string {
  if (value === null) return '-';
  return rate ? `${(value * 100).toFixed(1)}%` : value.toFixed(3);
}

function differenceText(comparison: PairedComparison, rate: boolean): string {
  const { difference, low, high } = comparison;
  if (difference === null) return '-';
  const show = (value: number) =>
    rate ? `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}` : `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
  const interval = low === null || high === null ? '' : ` [${show(low)}, ${show(high)}]`;
  return `${show(difference)}${interval}${rate ? ' pts' : ''}`;
}

export function testName(test: PairedComparison['test']): string {
  return test === 'mcnemar_exact' ? 'McNemar exact' : 'sign test';
}

/** p-values as people read them: 4 significant digits, and never 0; `-` where nothing was tested (0 common tasks). */
export function pText(p: number | null): string {
  if (p === null) return '-';
  return p < 0.0001 ? '<0.0001' : String(Number(p.toPrecision(4)));
}

/** The paired comparisons as a table, and what they mean; with several, Holm's adjusted p-values beside the raw ones. */
export function comparisonsText(comparisons: readonly PairedComparison[], metric: ModelTaskMatrix['metric'], scoredBy: string): string {
  if (comparisons.length === 0) return '';
  const rate = metric !== 'mean_score';
  const tested = comparisons.filter((comparison) => comparison.p_value !== null).length;
  const holm = comparisons.some((comparison) => comparison.p_holm !== null);
  return [
    `Paired comparisons (${scoredBy}), task by task (a task's value is its ${rate ? 'pass rate' : 'mean score'} over its repeats; difference = a - b, 95% CI by Student t over the tasks):`,
    columns([
      ['a', 'b', 'tasks', 'a', 'b', 'difference [95% CI]', 'a better', 'b better', 'test', 'p', ...(holm ? ['p (Holm)'] : [])],
      ...comparisons.map((comparison) => [
        comparison.a,
        comparison.b,
        String(comparison.tasks),
        valueText(comparison.mean_a, rate),
        valueText(comparison.mean_b, rate),
        differenceText(comparison, rate),
        String(comparison.a_better),
        String(comparison.b_better),
        comparison.tasks === 0 ? '-' : testName(comparison.test),
        pText(comparison.p_value),
        ...(holm ? [pText(comparison.p_holm)] : []),
      ]),
    ]),
    'McNemar exact: the two-sided binomial test on the tasks where one passed and the other failed. Sign test: the same test on the tasks where one scored higher. Ties are left out.',
    ...(holm
      ? [
          `${tested} comparisons made: p (Holm) is each p adjusted by Holm's method for all ${tested}, so that a difference found by chance among many is not read as real; judge by it, not by the raw p.`,
        ]
      : []),
    ...(comparisons.some((comparison) => comparison.tasks === 0) ? ['A comparison on 0 common tasks tests nothing: its p is -.'] : []),
  ].join('\n');
}

/** `delta report A B`: the two batches, what they share, and each matched model compared. */
export function batchComparisonText(comparison: BatchComparison): string {
  const side = (name: string, batch: BatchComparison['a']) =>
    `Batch ${name}: ${batch.out} (${batch.tasks} tasks; models ${batch.models.join(', ')}; ${graderLine(batch.grader, batch.grader ? [batch.grader] : [], batch.grader_choice)})`;
  const scoredBy = `A: ${sideScoredBy(comparison.a.grader)}, B: ${sideScoredBy(comparison.b.grader)}`;
  const matched = comparison.pairs.map((pair) =>
    pair.matched_by === 'name' ? pair.model_a : `${pair.model_a} (A) with ${pair.model_b} (B), the only model of each`,
  );
  return [
    side('A', comparison.a),
    side('B', comparison.b),
    `Common tasks (matched by id): ${comparison.common_tasks.length}; only in A: ${comparison.only_a.length}; only in B: ${comparison.only_b.length}.`,
    `Models compared (matched by name): ${matched.length > 0 ? matched.join(', ') : 'none'}.${comparison.unmatched_a.length > 0 ? ` Only in A: ${comparison.unmatched_a.join(', ')}.` : ''}${comparison.unmatched_b.length > 0 ? ` Only in B: ${comparison.unmatched_b.join(', ')}.` : ''}`,
    '',
    matrixText(comparison.matrix, scoredBy),
    '',
    comparisonsText(
      comparison.pairs.map((pair) => pair.comparison),
      comparison.matrix.metric,
      scoredBy,
    ),
    '',
  ].join('\n');
}

const COMPARISON_COLUMNS = [
  'a',
  'b',
  'tasks',
  'mean_a',
  'mean_b',
  'difference',
  'ci_low',
  'ci_high',
  'a_better',
  'b_better',
  'ties',
  'test',
  'p_value',
  'p_holm',
] as const;

/**
 * The paired comparisons as CSV, numbers rounded as the text shows them (p to 6 significant digits); `p_value`
 * is empty on 0 common tasks, `p_holm` unless the comparisons are several.
 */
export function comparisonsCsv(comparisons: readonly PairedComparison[]): string {
  const cell = (value: unknown) => {
    if (value === null || value === undefined) return '';
    const text = String(value);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const four = (value: number | null) => (value === null ? null : rounded(value, 4));
  const lines = comparisons.map((comparison) => {
    const values: Record<(typeof COMPARISON_COLUMNS)[number], unknown> = {
      ...comparison,
      mean_a: four(comparison.mean_a),
      mean_b: four(comparison.mean_b),
      difference: four(comparison.difference),
      ci_low: four(comparison.low),
      ci_high: four(comparison.high),
      p_value: comparison.p_value === null ? null : Number(comparison.p_value.toPrecision(6)),
      p_holm: comparison.p_holm === null ? null : Number(comparison.p_holm.toPrecision(6)),
    };
    return COMPARISON_COLUMNS.map((column) => cell(values[column])).join(',');
  });
  return `${[COMPARISON_COLUMNS.join(','), ...lines].join('\n')}\n`;
}
