import { relative } from 'node:path';
import { formatCapturedOutput, type CommandResult } from '@delta/command-runner';
import type { ToolExecutionRecord } from '@delta/journal';

/**
 * What the model sees of a tool run: stdout, then stderr and the exit code when there is something to
 * say. Each stream is bounded; a cut stream says where its full text is (relative to the workspace).
 */
export function formatObservation(
  result: CommandResult,
  record: ToolExecutionRecord,
  workDir: string,
  options: { timeoutMs?: number } = {},
): string {
  if (result.startError) return `Error: the tool could not start: ${result.startError}`;
  const parts: string[] = [];
  const stdout = formatCapturedOutput(result.stdout, relative(workDir, record.stdout));
  const stderr = formatCapturedOutput(result.stderr, relative(workDir, record.stderr));
  if (stdout !== '') parts.push(stdout.replace(/\n$/, ''));
  if (stderr !== '') parts.push(`[stderr]\n${stderr.replace(/\n$/, '')}`);
  if (result.timedOut) parts.push(timeLimitNote(options.timeoutMs));
  else if (result.aborted) parts.push('[the tool was interrupted: the run was stopped]');
  else if (result.exitCode !== 0) parts.push(`[exit code: ${result.exitCode ?? `killed by ${result.signal}`}]`);
  return parts.length === 0 ? '(no output)' : parts.join('\n');
}

/** Says that the limit was hit, which limit, and that nothing of the tool is left running. */
function timeLimitNote(timeoutMs: number | undefined): string {
  const limit = timeoutMs === undefined ? 'its time limit' : `its time limit of ${timeoutMs} ms (timeout_ms)`;
  return `[the tool was stopped: it ran past ${limit}; its whole process group was killed]`;
}
