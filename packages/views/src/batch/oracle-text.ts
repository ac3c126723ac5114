import { relative } from 'node:path';
import type { OracleSummary, OracleVerdict } from '@delta/experiments';

/** A path as people read it: relative to `cwd` when it lies below it. */
function shown(path: string, cwd: string): string {
  const near = relative(cwd, path);
  return near !== '' && !near.startsWith('..') ? near : path;
}

/** `delta batch --oracle`: one task's line (and, for a failure, where its logs are), paths shown from `cwd`. */
export function oracleLine(verdict: OracleVerdict, cwd: string): string {
  if (verdict.verdict === 'passed') return `oracle passed  ${verdict.task}  (${shown(verdict.work_dir, cwd)})\n`;
  if (verdict.verdict === 'no-oracle') return `no oracle      ${verdict.task}  (it has no solution/solve.sh)\n`;
  if (verdict.verdict === 'not-run') return `oracle not run ${verdict.task}  (${shown(verdict.work_dir, cwd)})\n`;
  const logs = [
    ...(verdict.solve_logs === null ? [] : [`solve.sh's output ${shown(verdict.solve_logs, cwd)}/`]),
    ...(verdict.verifier_logs === null ? [] : [`the verifier's ${shown(verdict.verifier_logs, cwd)}/`]),
  ];
  return `oracle FAILED  ${verdict.task}  ${verdict.reason ?? ''}\n${logs.length === 0 ? '' : `  logs: ${logs.join(', ')}\n`}`;
}

/** `delta batch --oracle`'s closing lines: the counts, and the tasks whose oracle failed. */
export function oracleSummaryText(summary: OracleSummary, cwd: string): string {
  const total = summary.verdicts.length;
  const counts = [
    `${summary.passed} passed`,
    `${summary.failed} failed`,
    ...(summary.noOracle > 0 ? [`${summary.noOracle} with no oracle`] : []),
    ...(summary.notRun > 0 ? [`${summary.notRun} not run`] : []),
  ];
  const lines = [`Oracle: ${counts.join(', ')}, of ${total} task${total === 1 ? '' : 's'} (verified by ${summary.verifier}).`];
  const failed = summary.verdicts.filter((verdict) => verdict.verdict === 'failed').map((verdict) => verdict.task);
  if (failed.length > 0) {
    lines.push(
      `The oracle failed for ${failed.join(', ')}: a broken task or image. delta report ${shown(summary.out, cwd)} leaves ${failed.length === 1 ? 'it' : 'them'} out of the pass rates.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
