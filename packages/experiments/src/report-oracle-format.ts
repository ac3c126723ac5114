import type { BatchOracle } from './batch-report.js';

/**
 * The report's oracle lines, when the batch's oracle ran: how many tasks it passed, and each task whose oracle
 * failed (left out of every figure), with why and where its run is; the tasks with no oracle (kept).
 */
export function oracleLines(oracle: BatchOracle | undefined): string[] {
  if (oracle === undefined) return [];
  const passed = oracle.tasks.filter((task) => task.verdict === 'passed').length;
  const notRun = oracle.tasks.filter((task) => task.verdict === 'not-run').map((task) => task.task);
  const parts = [
    `${passed} of ${oracle.tasks.length} task${oracle.tasks.length === 1 ? '' : 's'} passed`,
    `${oracle.left_out.length} failed${oracle.left_out.length > 0 ? ', left out of every figure below' : ''}`,
    ...(oracle.no_oracle.length > 0 ? [`${oracle.no_oracle.length} with no oracle, kept`] : []),
    ...(notRun.length > 0 ? [`${notRun.length} not run yet, kept`] : []),
  ];
  const failed = oracle.tasks.filter((task) => task.verdict === 'failed');
  return [
    `Oracle (each task's solution, verified by ${oracle.verifier}): ${parts.join('; ')}.`,
    ...failed.map((task) => `  left out: ${task.task}: ${task.reason ?? ''} (${task.work_dir})`),
    ...(oracle.no_oracle.length > 0 ? [`  no oracle: ${oracle.no_oracle.join(', ')}`] : []),
    ...(notRun.length > 0 ? [`  oracle not run: ${notRun.join(', ')}`] : []),
  ];
}
