import { writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { BatchRunRow } from '@delta/experiments';
import { runPaths } from '@delta/journal';
import { collectRun } from './collect-run.js';
import { renderBatchHtml } from './render-batch-html.js';
import { renderRunHtml } from './render-html.js';

/**
 * `delta view OUT` for a batch: writes each run's own page (`<run>/view.html`, as `delta view -w` does) and
 * one batch page linking to them (default `OUT/index.html`), its scores from `grader` (a hash, a prefix of one, or
 * a command; default the batch's own). Returns the batch page's path.
 */
export async function writeBatchView(out: string, output: string | undefined, grader?: string): Promise<string> {
  const { batchReport } = await import('@delta/experiments');
  const report = batchReport(resolve(out), { grader });
  const page = output === undefined ? join(report.out, 'index.html') : resolve(output);
  const links = new Map<BatchRunRow, string>();
  for (const row of report.runs) {
    if (row.run_id === null) continue;
    const paths = runPaths(row.work_dir, row.run_id);
    const file = join(paths.runDir, 'view.html');
    writeFileSync(file, renderRunHtml(collectRun(paths)));
    links.set(row, relative(dirname(page), file));
  }
  writeFileSync(page, renderBatchHtml(report, links));
  return page;
}
