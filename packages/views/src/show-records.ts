import { existsSync, statSync } from 'node:fs';
import type { ActionResultEvent, RunPaths } from '@delta/journal';
import { formatCount, formatDuration } from './inspect/format-numbers.js';
import {
  readInvocationMetadata,
  readInvocationRequestBytes,
  readInvocationResponseText,
  readRunJournal,
  type ToolExecutionFiles,
} from './inspect/run-records.js';
import type { ShowOutput } from './show-output.js';
import { visibleControls } from './inspect/visible-controls.js';

/** `delta show invocation N|ID`: the call's facts, the reasoning, the exact request bytes and the response. */
export function showInvocation(paths: RunPaths, id: string, output: ShowOutput): number {
  const { palette, write, heading } = output;
  const request = readInvocationRequestBytes(paths, id);
  const response = readInvocationResponseText(paths, id);
  const metadata = readInvocationMetadata(paths, id);
  heading(`invocation ${id}`);
  if (metadata) {
    const tokens = metadata.token_usage;
    const cached = tokens?.cached_tokens === undefined ? '' : ` (${formatCount(tokens.cached_tokens)} cached)`;
    const reasoning = tokens?.reasoning_tokens === undefined ? '' : ` (${formatCount(tokens.reasoning_tokens)} reasoning)`;
    const usage = tokens
      ? `, tokens ${formatCount(tokens.prompt_tokens)} in${cached} + ${formatCount(tokens.completion_tokens)} out${reasoning}`
      : '';
    write(
      `iteration ${metadata.iteration}, model ${metadata.model}, ${metadata.status}, ${formatDuration(metadata.duration_ms)}${usage}, started ${metadata.started_at}\n`,
    );
    if (metadata.error) write(`${palette.red(`error: ${metadata.error}`)}\n`);
  }
  // The model's reasoning as the journal keeps it (the response below has it where the server put it).
  const thought = readRunJournal(paths).find((event) => event.type === 'THOUGHT' && event.llm_invocation_ref === id);
  if (thought?.type === 'THOUGHT' && thought.reasoning) {
    heading('reasoning');
    write(`${visibleControls(thought.reasoning).replace(/\n?$/, '\n')}`);
  }
  heading('request (exact bytes sent)');
  write(request ? `${request.toString('utf8').replace(/\n?$/, '\n')}` : palette.dim('(not recorded)\n'));
  heading('response');
  write(response ? response.replace(/\n?$/, '\n') : palette.dim('(none: the call failed)\n'));
  return 0;
}

/** `delta show action ID|N` for a call that ran: its facts, command line, stdout and stderr. */
export async function showAction(files: ToolExecutionFiles, result: ActionResultEvent | undefined, output: ShowOutput): Promise<number> {
  const { palette, write, heading, pipe } = output;
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  heading(`action ${result?.action_id ?? files.ref}${result ? ` (${result.tool_name}, iteration ${result.iteration})` : ''}`);
  const facts = [
    result ? result.status : undefined,
    files.exitCode !== undefined ? `exit ${files.exitCode === '' ? 'none' : files.exitCode}` : 'still running or stopped',
    files.durationMs !== undefined ? formatDuration(files.durationMs) : undefined,
  ].filter(Boolean);
  write(`${facts.join(', ')}\n${palette.dim(files.dir)}\n`);
  heading('command');
  write(`${files.command === undefined ? '(not recorded)' : visibleControls(files.command)}\n`);
  heading(`stdout (${formatCount(size(files.stdout))} bytes)`);
  await pipe(files.stdout);
  if (size(files.stdout) > 0) write('\n');
  heading(`stderr (${formatCount(size(files.stderr))} bytes)`);
  await pipe(files.stderr);
  return 0;
}

/** A call with a result and no execution: what stopped it, and what the model was told instead. */
export function showCallThatDidNotRun(result: ActionResultEvent, output: ShowOutput): number {
  const { blocked_by: blockedBy } = result as ActionResultEvent & { blocked_by?: string };
  output.heading(`action ${result.action_id} (${result.tool_name}, iteration ${result.iteration})`);
  output.write(
    blockedBy === undefined
      ? `${result.status}: it did not run (it was refused before it started)\n`
      : `BLOCKED: it did not run; the pre_tool_execution hook refused it (${blockedBy})\n`,
  );
  output.heading('what the model was told');
  output.write(visibleControls(result.observation_content).replace(/\n?$/, '\n'));
  return 0;
}
