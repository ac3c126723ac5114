import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadPages } from '@delta/views';
import { locateRun, type RunLocation } from './inspect/locate-run.js';
import { usageError } from './usage-error.js';

export interface ViewFlags extends RunLocation {
  output?: string;
  stdout?: boolean;
  /** A batch's page: whose scores it shows (default: the batch's own grader). */
  grader?: string | boolean;
}

/** `delta view OUT` writes a batch's pages (@delta/views' writeBatchView). `delta view`: writes one self-contained HTML page of a run (default: `<run>/view.html`) and prints its path, or prints the page with --stdout. */
export async function viewCommand(directory: string | undefined, flags: ViewFlags): Promise<number> {
  const { collectRun, renderRunHtml, writeBatchView } = await loadPages();
  if (directory !== undefined && existsSync(join(directory, '.batch', 'definition.json'))) {
    // A batch's page links to one page per run, written beside each run: it is a set of files, not one page.
    if (flags.stdout)
      throw usageError(
        `${directory} is a batch: its page links to a page per run, so it is written to files, not to stdout.`,
        `Use \`delta view ${directory}\` (or -o FILE); for one run's page, \`delta view -w <run workspace> --stdout\`.`,
      );
    if (flags.runId !== undefined)
      throw usageError(
        `${directory} is a batch: --run-id names a run of a workspace.`,
        `Use \`delta view -w <run workspace> --run-id ID\` for one run's page.`,
      );
    if (flags.grader !== undefined && (typeof flags.grader !== 'string' || flags.grader.trim() === ''))
      throw usageError('--grader is empty.', `Give the hash or command of a grader that delta report ${directory} lists.`);
    const { batchReport } = await import('@delta/experiments');
    const report = batchReport(resolve(directory), { grader: typeof flags.grader === 'string' ? flags.grader : undefined });
    process.stdout.write(`${writeBatchView(report, flags.output === undefined ? undefined : String(flags.output))}\n`);
    return 0;
  }
  if (flags.grader !== undefined)
    throw usageError(
      '--grader picks the scores of a batch page; a run has no grader.',
      'Use `delta view OUT --grader HASH` with a batch directory.',
    );
  // A directory that is not a batch is a workspace, as with -w.
  if (directory !== undefined) flags = { ...flags, workDir: directory };
  const paths = locateRun(flags);
  if (flags.stdout) {
    process.stdout.write(renderRunHtml(collectRun(paths)));
    return 0;
  }
  const file = flags.output === undefined ? join(paths.runDir, 'view.html') : resolve(String(flags.output));
  writeFileSync(file, renderRunHtml(collectRun(paths)));
  process.stdout.write(`${file}\n`);
  return 0;
}
