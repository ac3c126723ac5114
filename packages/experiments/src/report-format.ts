import { type BatchReport, type GroupStatistics, groupStatistics } from './batch-report.js';
import { columns, comparisonsText, matrixText, rounded } from './report-comparison-format.js';
import { graderLine, judgeUsageLines, scoredBy } from './report-grader-format.js';
import { oracleLines } from './report-oracle-format.js';

/** `1 task`, `3 tasks`. */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

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
  'limit_hits',
  'passes',
  'failed_verifications',
  'verifier_errors',
  'model',
  'task',
] as const;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRow(group: string, statistics: GroupStatistics, cell: { model?: string; task?: string } = {}): string {
  const four = (value: number | undefined) => (value === undefined ? null : rounded(value, 4));
  // Rounded as the text shows them, a few digits further: 0.015981, never 0.01598100000000001.
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    group,
    ...statistics,
    score: four(statistics.score?.mean),
    ci_low: four(statistics.score?.low),
    ci_high: four(statistics.score?.high),
    cost: statistics.cost === null ? null : rounded(statistics.cost, 6),
    median_duration_ms: statistics.median_duration_ms === null ? null : Math.round(statistics.median_duration_ms),
    model: cell.model ?? null,
    task: cell.task ?? null,
  };
  return CSV_COLUMNS.map((column) => csvCell(values[column])).join(',');
}

/**
 * The report as CSV: one row per model, then per task, then per cell of the model x task matrix (`model` and
 * `task` say which), then per metadata group with --by (the `group` column says which kind of row).
 */
export function reportCsv(report: BatchReport): string {
  const cells = report.matrix.cells.map((cell) =>
    csvRow(
      'cell',
      groupStatistics(
        cell.task,
        report.runs.filter((row) => row.task === cell.task && row.model === cell.model),
      ),
      { model: cell.model, task: cell.task },
    ),
  );
  const groups = (report.groups?.groups ?? []).flatMap((group) => [
    ...group.by_model.map((statistics) => csvRow(report.groups!.key, { ...statistics, name: group.value }, { model: statistics.name })),
    csvRow(report.groups!.key, group.all),
  ]);
  const rows = [
    CSV_COLUMNS.join(','),
    ...report.by_model.map((statistics) => csvRow('model', statistics)),
    ...report.by_task.map((statistics) => csvRow('task', statistics)),
    ...cells,
    ...groups,
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
      'hit a limit',
      'passed',
      'failed verification',
      'verifier errors',
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
      String(group.limit_hits),
      group.passes === null ? '-' : `${group.passes}/${group.scored}`,
      group.failed_verifications === null ? '-' : String(group.failed_verifications),
      String(group.verifier_errors),
      scoreText(group),
      group.median_iterations === null ? '-' : String(group.median_iterations),
      `${number(group.prompt_tokens)} (${number(group.cached_tokens)})`,
      number(group.completion_tokens),
      group.cost === null ? '-' : `${group.cost.toFixed(4)} ${group.currency ?? ''}`.trim(),
      seconds(group.median_duration_ms),
    ]),
  ];
  return columns(rows);
}

function withBlank(lines: readonly string[]): string[] {
  return lines.length === 0 ? [] : [...lines, ''];
}

/** The report for a person: a table per model, then per task across models. */
export function reportText(report: BatchReport): string {
  const { definition } = report;
  const scored = report.by_model.some((group) => group.scored > 0);
  const by = scoredBy(report.grader);
  return [
    `Batch ${report.out}: ${plural(definition.task_ids.length, 'task')} x ${plural(definition.models.length, 'model')} x ${plural(definition.repeat, 'repeat')} = ${plural(report.runs.length, 'run')}`,
    graderLine(report.grader, report.graders, report.grader_choice),
    ...oracleLines(report.oracle),
    '',
    `Per model (${by}):`,
    table('model', report.by_model),
    '',
    `Per task (${by}):`,
    table('task', report.by_task),
    '',
    ...withBlank(judgeUsageLines(report.graders)),
    ...(report.groups === undefined
      ? []
      : report.groups.groups.flatMap((group) => [
          `By ${report.groups!.key} (${by}):`,
          table(`${report.groups!.key} = ${group.value} (${group.tasks.length} tasks)`, [
            ...group.by_model,
            { ...group.all, name: 'all models' },
          ]),
          '',
        ])),
    matrixText(report.matrix, by),
    '',
    ...(report.comparisons.length > 0 ? [comparisonsText(report.comparisons, report.matrix.metric, by), ''] : []),
    ...(scored
      ? [
          "Scores come from the grader named at the top (each run's grades/<hash>.json); a FAILED run counts as 0, unfinished runs are left out.",
          "A verifier error (the grader could not run, timed out, crashed or gave no verdict) is left out of the rate: see the run's grade.json and grades/<hash>.grader/.",
          'Hit a limit: runs that ran into one of their limits (metadata.json limits_hit: memory, processes, ...), counted apart from failures; each is scored as its status and grade say.',
        ]
      : ['No run is graded: give the batch a --grader, or score it with delta grade OUT --grader CMD.']),
    '',
  ].join('\n');
}
