import type { BatchReport, GroupStatistics } from './batch-report.js';

const CSV_COLUMNS = [
  'group',
  'name',
  'runs',
  'completed',
  'failed',
  'unfinished',
  'scored',
  'metric',
  'score',
  'ci_low',
  'ci_high',
  'median_iterations',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cost',
  'currency',
  'median_duration_ms',
] as const;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRow(group: string, statistics: GroupStatistics): string {
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    group,
    ...statistics,
    score: statistics.score?.mean ?? null,
    ci_low: statistics.score?.low ?? null,
    ci_high: statistics.score?.high ?? null,
  };
  return CSV_COLUMNS.map((column) => csvCell(values[column])).join(',');
}

/** The report as CSV: one row per model, then one per task (the `group` column says which). */
export function reportCsv(report: BatchReport): string {
  const rows = [
    CSV_COLUMNS.join(','),
    ...report.by_model.map((statistics) => csvRow('model', statistics)),
    ...report.by_task.map((statistics) => csvRow('task', statistics)),
  ];
  return `${rows.join('\n')}\n`;
}

function number(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function seconds(milliseconds: number | null): string {
  return milliseconds === null ? '-' : `${(milliseconds / 1000).toFixed(1)}s`;
}

function scoreText(statistics: GroupStatistics): string {
  if (statistics.score === null) return '-';
  const { mean, low, high } = statistics.score;
  return statistics.metric === 'pass_rate'
    ? `${(mean * 100).toFixed(0)}% [${(low * 100).toFixed(0)}-${(high * 100).toFixed(0)}]`
    : `${mean.toFixed(2)} [${low.toFixed(2)}, ${high.toFixed(2)}]`;
}

function table(header: string, groups: readonly GroupStatistics[]): string {
  const metric = groups.some((group) => group.metric === 'mean_score') ? 'mean score [95% CI]' : 'pass rate [95% CI]';
  const rows = [
    [
      header,
      'runs',
      'completed',
      'failed',
      'unfinished',
      metric,
      'median iterations',
      'tokens in (cached)',
      'tokens out',
      'cost',
      'median time',
    ],
    ...groups.map((group) => [
      group.name,
      String(group.runs),
      String(group.completed),
      String(group.failed),
      String(group.unfinished),
      scoreText(group),
      group.median_iterations === null ? '-' : String(group.median_iterations),
      `${number(group.prompt_tokens)} (${number(group.cached_tokens)})`,
      number(group.completion_tokens),
      group.cost === null ? '-' : `${group.cost.toFixed(4)} ${group.currency ?? ''}`.trim(),
      seconds(group.median_duration_ms),
    ]),
  ];
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

/** The report for a person: a table per model, then per task across models. */
export function reportText(report: BatchReport): string {
  const { definition } = report;
  const scored = report.by_model.some((group) => group.scored > 0);
  return [
    `Batch ${report.out}: ${definition.task_ids.length} tasks x ${definition.models.length} models x ${definition.repeat} repeats = ${report.runs.length} runs`,
    '',
    table('model', report.by_model),
    '',
    table('task', report.by_task),
    '',
    scored
      ? "Scores come from each run's grade.json; a FAILED run counts as 0, unfinished runs are left out."
      : 'No run is graded: give the batch a --grader, or score it with delta grade OUT --grader CMD.',
    '',
  ].join('\n');
}
