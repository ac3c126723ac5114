import type { RunResultObject } from './run-result.js';

const RULE = '─'.repeat(80);

/**
 * `--format text`: the summary block v1.10 printed (`Run ID:`, `Status:`, `Execution Summary:`,
 * `Iterations:`, `Duration:`), then what the status calls for: the answer, the error, the question or why
 * the run stopped. Times are ISO 8601, as everywhere else in Delta.
 */
export function runSummaryText(run: RunResultObject): string {
  const lines = [RULE, `Run ID: ${run.run_id}`, `Status: ${run.status}`, RULE, ''];
  lines.push('Execution Summary:');
  lines.push(`  • Iterations: ${run.metrics.iterations}`);
  lines.push(`  • Duration: ${(run.metrics.duration_ms / 1000).toFixed(2)}s`);
  lines.push(`  • Start Time: ${run.metrics.start_time}`);
  lines.push(`  • End Time: ${run.metrics.end_time}`);
  if (run.status === 'COMPLETED') {
    lines.push('', 'Final Response:', RULE, run.result ?? '');
  } else if (run.status === 'FAILED') {
    lines.push('', 'Error:', ...(run.error ?? run.reason ?? 'unknown').split('\n').map((line) => `  ${line}`));
  } else if (run.question !== null) {
    lines.push('', 'Human Input Required:', `  Prompt: ${run.question.prompt}`, `  Type: ${run.question.input_type}`);
    lines.push(`  Answer in: ${run.question.response_file}`);
  } else if (run.reason !== null) {
    lines.push('', `Reason: ${run.reason}`);
  }
  lines.push(RULE);
  return `${lines.join('\n')}\n`;
}
