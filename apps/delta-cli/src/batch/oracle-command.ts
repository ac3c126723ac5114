import { relative } from 'node:path';
import type { BatchSpec, OracleSummary, OracleVerdict } from '@delta/experiments';
import { printConfigWarning } from '../config-warnings.js';
import { engineEnvironment } from '../handed-keys.js';
import { imageCacheOption } from '../sandbox-flags.js';
import { abortOnSignals } from '../signals.js';
import { subAgentEnvironment } from '../sub-agent-environment.js';

/** A path as people read it: relative to the working directory when it lies below it. */
function shown(path: string): string {
  const near = relative(process.cwd(), path);
  return near !== '' && !near.startsWith('..') ? near : path;
}

/** One task's line (and, for a failure, where its logs are). */
export function oracleLine(verdict: OracleVerdict): string {
  if (verdict.verdict === 'passed') return `oracle passed  ${verdict.task}  (${shown(verdict.work_dir)})\n`;
  if (verdict.verdict === 'no-oracle') return `no oracle      ${verdict.task}  (it has no solution/solve.sh)\n`;
  if (verdict.verdict === 'not-run') return `oracle not run ${verdict.task}  (${shown(verdict.work_dir)})\n`;
  const logs = [
    ...(verdict.solve_logs === null ? [] : [`solve.sh's output ${shown(verdict.solve_logs)}/`]),
    ...(verdict.verifier_logs === null ? [] : [`the verifier's ${shown(verdict.verifier_logs)}/`]),
  ];
  return `oracle FAILED  ${verdict.task}  ${verdict.reason ?? ''}\n${logs.length === 0 ? '' : `  logs: ${logs.join(', ')}\n`}`;
}

/** The closing lines: the counts, and the tasks whose oracle failed. */
export function oracleSummaryText(summary: OracleSummary): string {
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
      `The oracle failed for ${failed.join(', ')}: a broken task or image. delta report ${shown(summary.out)} leaves ${failed.length === 1 ? 'it' : 'them'} out of the pass rates.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Exit code: 130 when stopped, 1 when an oracle failed or did not finish, 0 when every task's oracle passed (or it has none). */
export function oracleExitCode(summary: OracleSummary): number {
  if (summary.stopped) return 130;
  return summary.failed > 0 || summary.notRun > 0 ? 1 : 0;
}

/** `delta batch DIR --agent A --out OUT --oracle`: each task's solution instead of the model, then its verifier. */
export async function oracleCommand(spec: BatchSpec, options: { concurrency: number; json: boolean }): Promise<number> {
  const { runOracle } = await import('@delta/experiments');
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'the oracle');
  const print = (line: string) => process.stdout.write(line);
  try {
    const summary = await runOracle({
      ...spec,
      concurrency: options.concurrency,
      onWarning: printConfigWarning,
      environment: engineEnvironment(),
      toolEnv: subAgentEnvironment(),
      ...imageCacheOption(),
      signal: controller.signal,
      onVerdict: (verdict) => print(options.json ? `${JSON.stringify({ type: 'oracle_task', ...verdict })}\n` : oracleLine(verdict)),
    });
    const { verdicts: _verdicts, ...counts } = summary;
    print(options.json ? `${JSON.stringify({ type: 'oracle_end', ...counts })}\n` : oracleSummaryText(summary));
    return oracleExitCode(summary);
  } finally {
    release();
  }
}
