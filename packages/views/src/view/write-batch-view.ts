import { writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { BatchReport, BatchRunRow } from '@delta/experiments';
import { runPaths } from '@delta/journal';
import { collectRun } from './collect-run.js';
import { renderBatchHtml } from './render-batch-html.js';
import { renderRunHtml } from './render-html.js';

/**
 * A batch's pages: each run's own page (`<run>/view.html`, as `delta view -w` writes it) and one batch page
 * linking to them (default `<report.out>/index.html`), its scores those of the report's grader. Returns the
 * batch page's path.
 */
export function writeBatchView(report: BatchReport, output: string | undefined): string {
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
