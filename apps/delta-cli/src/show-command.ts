import { createReadStream, existsSync, statSync } from 'node:fs';
import { once } from 'node:events';
import type { ActionResultEvent, RunPaths } from '@delta/journal';
import { paletteFor } from './inspect/color.js';
import { formatCount, formatDuration } from './inspect/format-numbers.js';
import { heading, showRun } from './show-run.js';
import { locateRun, type RunLocation } from './inspect/locate-run.js';
import {
  listInvocationIds,
  readInvocationMetadata,
  readInvocationRequestBytes,
  readInvocationResponseText,
  readRunJournal,
  toolExecutionFiles,
} from './inspect/run-records.js';
import { usageError } from './usage-error.js';

export interface ShowFlags extends RunLocation {
  request?: boolean;
  response?: boolean;
  stdout?: boolean;
  stderr?: boolean;
  verbose?: boolean;
}

/** Streams a file to stdout (a tool's output can be larger than memory). */
async function pipeFile(file: string): Promise<void> {
  if (!existsSync(file)) return;
  const stream = createReadStream(file);
  stream.pipe(process.stdout, { end: false });
  await once(stream, 'end');
}

function resolveInvocation(paths: RunPaths, key: string): string {
  const ids = listInvocationIds(paths);
  if (ids.includes(key)) return key;
  const number = Number(key);
  if (Number.isInteger(number) && number >= 1 && number <= ids.length) return ids[number - 1]!;
  throw usageError(
    `The run ${paths.runId} has no invocation "${key}".`,
    ids.length === 0
      ? 'The run made no model calls.'
      : `Give a number from 1 to ${ids.length}, or an id: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}.`,
  );
}

async function showInvocation(paths: RunPaths, key: string, flags: ShowFlags): Promise<number> {
  const id = resolveInvocation(paths, key);
  const request = readInvocationRequestBytes(paths, id);
  const response = readInvocationResponseText(paths, id);
  if (flags.request || flags.response) {
    if (flags.request && request) process.stdout.write(request);
    if (flags.response && response) process.stdout.write(response);
    return 0;
  }
  const palette = paletteFor(process.stdout);
  const metadata = readInvocationMetadata(paths, id);
  heading(`invocation ${id}`);
  if (metadata) {
    const tokens = metadata.token_usage;
    const cached = tokens?.cached_tokens === undefined ? '' : ` (${formatCount(tokens.cached_tokens)} cached)`;
    const reasoning = tokens?.reasoning_tokens === undefined ? '' : ` (${formatCount(tokens.reasoning_tokens)} reasoning)`;
    const usage = tokens
      ? `, tokens ${formatCount(tokens.prompt_tokens)} in${cached} + ${formatCount(tokens.completion_tokens)} out${reasoning}`
      : '';
    process.stdout.write(
      `iteration ${metadata.iteration}, model ${metadata.model}, ${metadata.status}, ${formatDuration(metadata.duration_ms)}${usage}, started ${metadata.started_at}\n`,
    );
    if (metadata.error) process.stdout.write(`${palette.red(`error: ${metadata.error}`)}\n`);
  }
  // The model's reasoning as the journal keeps it (the response below has it where the server put it).
  const thought = readRunJournal(paths).find((event) => event.type === 'THOUGHT' && event.llm_invocation_ref === id);
  if (thought?.type === 'THOUGHT' && thought.reasoning) {
    heading('reasoning');
    process.stdout.write(`${thought.reasoning.replace(/\n?$/, '\n')}`);
  }
  heading('request (exact bytes sent)');
  process.stdout.write(request ? `${request.toString('utf8').replace(/\n?$/, '\n')}` : palette.dim('(not recorded)\n'));
  heading('response');
  process.stdout.write(response ? response.replace(/\n?$/, '\n') : palette.dim('(none: the call failed)\n'));
  return 0;
}

/**
 * The tool call `key` names: an execution reference (unique in a run), an action id, or a number. An id
 * that names several executions (ids can repeat across `delta continue`) is refused with the choices;
 * a call that never ran (a hook blocked it, its arguments were refused) has a result and no `ref`.
 */
function resolveAction(paths: RunPaths, key: string): { ref?: string; result?: ActionResultEvent } {
  const results = readRunJournal(paths).filter((event): event is ActionResultEvent => event.type === 'ACTION_RESULT');
  const executed = results.filter((event) => event.execution_ref);
  const byId = results.filter((event) => event.action_id === key);
  const ran = byId.filter((event) => event.execution_ref);
  // The number of a tool execution is unique in a run; an id the model used again is not.
  if (ran.length > 1) {
    const choices = ran.map((event) => `${executed.indexOf(event) + 1} (iteration ${event.iteration})`);
    throw usageError(
      `The id "${key}" names ${ran.length} tool executions in run ${paths.runId}: the model used it again after a delta continue.`,
      `Give its number instead: ${choices.join(' or ')}. \`delta show action N\` counts the run's tool executions in order.`,
    );
  }
  const byRef = results.find((event) => event.execution_ref === key);
  if (byRef) return { ref: key, result: byRef };
  if (byId.length > 0) return { result: byId.at(-1)! };
  const number = Number(key);
  if (Number.isInteger(number) && number >= 1 && number <= executed.length)
    return { ref: executed[number - 1]!.execution_ref!, result: executed[number - 1]! };
  if (toolExecutionFiles(paths, key)) return { ref: key };
  throw usageError(
    `The run ${paths.runId} has no tool execution "${key}".`,
    executed.length === 0
      ? 'No tool ran in this run (see `delta log`).'
      : `Give an action id (e.g. ${executed.at(-1)!.action_id}) or a number from 1 to ${executed.length}; \`delta log\` shows them.`,
  );
}

async function showAction(paths: RunPaths, key: string, flags: ShowFlags): Promise<number> {
  const { ref, result } = resolveAction(paths, key);
  if (ref === undefined) return showCallThatDidNotRun(result!);
  const files = toolExecutionFiles(paths, ref);
  if (!files) throw usageError(`The tool execution record io/tool_executions/${ref} is missing.`, 'It may have been deleted.');
  if (flags.stdout || flags.stderr) {
    if (flags.stdout) await pipeFile(files.stdout);
    if (flags.stderr) await pipeFile(files.stderr);
    return 0;
  }
  const palette = paletteFor(process.stdout);
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  heading(`action ${result?.action_id ?? ref}${result ? ` (${result.tool_name}, iteration ${result.iteration})` : ''}`);
  const facts = [
    result ? result.status : undefined,
    files.exitCode !== undefined ? `exit ${files.exitCode === '' ? 'none' : files.exitCode}` : 'still running or stopped',
    files.durationMs !== undefined ? formatDuration(files.durationMs) : undefined,
  ].filter(Boolean);
  process.stdout.write(`${facts.join(', ')}\n${palette.dim(files.dir)}\n`);
  heading('command');
  process.stdout.write(`${files.command ?? '(not recorded)'}\n`);
  heading(`stdout (${formatCount(size(files.stdout))} bytes)`);
  await pipeFile(files.stdout);
  if (size(files.stdout) > 0) process.stdout.write('\n');
  heading(`stderr (${formatCount(size(files.stderr))} bytes)`);
  await pipeFile(files.stderr);
  return 0;
}

/** A call with a result and no execution: what stopped it, and what the model was told instead. */
function showCallThatDidNotRun(result: ActionResultEvent): number {
  const { blocked_by: blockedBy } = result as ActionResultEvent & { blocked_by?: string };
  heading(`action ${result.action_id} (${result.tool_name}, iteration ${result.iteration})`);
  process.stdout.write(
    blockedBy === undefined
      ? `${result.status}: it did not run (it was refused before it started)\n`
      : `BLOCKED: it did not run; the pre_tool_execution hook refused it (${blockedBy})\n`,
  );
  heading('what the model was told');
  process.stdout.write(result.observation_content.replace(/\n?$/, '\n'));
  return 0;
}

/** `delta show run`, `delta show invocation N|ID` and `delta show action ID|N`: a run's totals, the exact records of one step. */
export async function showCommand(kind: string, key: string | undefined, flags: ShowFlags): Promise<number> {
  if (kind === 'run') {
    if (key !== undefined) throw usageError('delta show run takes no id.', 'Name the run with --run-id ID (default: the latest).');
    return showRun(locateRun(flags), { verbose: flags.verbose === true, fingerprints: await import('@delta/engine') });
  }
  if (kind !== 'invocation' && kind !== 'action') {
    throw usageError(
      `delta show knows "run", "invocation" and "action", not "${kind}".`,
      'For example: delta show run, delta show invocation 1, or delta show action call_abc.',
    );
  }
  if (key === undefined) {
    throw usageError(
      `delta show ${kind} needs ${kind === 'invocation' ? 'a number or an invocation id' : 'an action id or a number'}.`,
      `For example: delta show ${kind} 1`,
    );
  }
  const paths = locateRun(flags);
  return kind === 'invocation' ? showInvocation(paths, String(key), flags) : showAction(paths, String(key), flags);
}
