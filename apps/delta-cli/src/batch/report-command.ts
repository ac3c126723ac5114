import { visibleControls } from '@delta/views';
import { usageError } from '../usage-error.js';

export interface ReportFlags {
  json?: boolean;
  /** `--csv` alone: the summary and the matrix; `--csv comparisons`: the paired comparisons. */
  csv?: boolean | string;
  grader?: string | boolean;
  by?: string | boolean;
}

function csvTable(csv: ReportFlags['csv']): 'summary' | 'comparisons' | undefined {
  if (csv === undefined || csv === false) return undefined;
  if (csv === true || csv === '' || csv === 'summary') return 'summary';
  if (csv === 'comparisons') return 'comparisons';
  throw usageError(
    `--csv takes no value, or "comparisons"; got "${csv}".`,
    'For example: delta report results --csv comparisons > comparisons.csv',
  );
}

/**
 * `delta report OUT`: per model and per task, the model x task matrix and paired comparisons between models.
 * `delta report OUT_A OUT_B`: the same models compared between two batches on their common tasks.
 */
export async function reportCommand(outs: readonly string[], flags: ReportFlags): Promise<number> {
  if (outs.length === 0) throw usageError('delta report needs the batch directory.', 'For example: delta report results');
  if (outs.length > 2) {
    throw usageError(`delta report compares at most two batches, got ${outs.length}.`, 'For example: delta report before after');
  }
  const table = csvTable(flags.csv);
  if (flags.json === true && table !== undefined) throw usageError('--json and --csv cannot be combined.', 'Choose one.');
  if (flags.grader !== undefined && (typeof flags.grader !== 'string' || flags.grader.trim() === '')) {
    throw usageError('--grader is empty.', 'Give the hash or command of a grader the report lists.');
  }
  if (flags.by !== undefined && (typeof flags.by !== 'string' || flags.by.trim() === '')) {
    throw usageError('--by needs a task metadata field.', 'For example: delta report results --by metadata.difficulty');
  }
  const grader = typeof flags.grader === 'string' ? flags.grader : undefined;
  const experiments = await import('@delta/experiments');
  if (outs.length === 2) {
    if (flags.by !== undefined)
      throw usageError('--by works on one batch.', `Run delta report ${outs[0]} --by ${flags.by}, then the other.`);
    const comparison = experiments.compareBatches(outs[0]!, outs[1]!, { grader });
    if (flags.json === true) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
    else if (table !== undefined)
      process.stdout.write(visibleControls(experiments.comparisonsCsv(comparison.pairs.map((pair) => pair.comparison))));
    else process.stdout.write(visibleControls(experiments.batchComparisonText(comparison)));
    return 0;
  }
  const report = experiments.batchReport(outs[0]!, { grader, by: typeof flags.by === 'string' ? flags.by : undefined });
  if (flags.json === true) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (table === 'comparisons') process.stdout.write(visibleControls(experiments.comparisonsCsv(report.comparisons)));
  else if (table === 'summary') process.stdout.write(visibleControls(experiments.reportCsv(report)));
  else process.stdout.write(visibleControls(experiments.reportText(report)));
  return 0;
}
