import { usageError } from '../usage-error.js';

export interface ReportFlags {
  json?: boolean;
  csv?: boolean;
}

/** `delta report OUT`: per model and per task, runs, completion, score with its 95% interval, tokens, cost, time. */
export async function reportCommand(out: string | undefined, flags: ReportFlags): Promise<number> {
  if (out === undefined) throw usageError('delta report needs the batch directory.', 'For example: delta report results');
  if (flags.json === true && flags.csv === true) throw usageError('--json and --csv cannot be combined.', 'Choose one.');
  const { batchReport, reportCsv, reportText } = await import('@delta/experiments');
  const report = batchReport(out);
  if (flags.json === true) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (flags.csv === true) process.stdout.write(reportCsv(report));
  else process.stdout.write(reportText(report));
  return 0;
}
