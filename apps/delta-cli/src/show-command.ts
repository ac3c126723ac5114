import { createReadStream, existsSync, statSync } from 'node:fs';
import { once } from 'node:events';
import type { ActionResultEvent, RunPaths } from '@delta/journal';
import { paletteFor } from './inspect/color.js';
import { formatCount, formatDuration } from './inspect/format-numbers.js';
import { showRun } from './show-run.js';
import { locateRun } from './inspect/locate-run.js';
import {
  listInvocationIds,
  readInvocationMetadata,
  readInvocationRequestBytes,
  readInvocationResponseText,
  readRunJournal,
  toolExecutionFiles,
} from './inspect/run-records.js';
import { usageError } from './usage-error.js';

export interface ShowFlags {
  workDir?: string;
  runId?: string;
  request?: boolean;
  response?: boolean;
  stdout?: boolean;
  stderr?: boolean;
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
  const heading = (text: string) => process.stdout.write(`${palette.bold(`== ${text}`)}\n`);
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

function resolveAction(paths: RunPaths, key: string): { ref: string; result?: ActionResultEvent } {
  const results = readRunJournal(paths).filter((event): event is ActionResultEvent => event.type === 'ACTION_RESULT');
  const byRef = results.find((event) => event.execution_ref === key);
  if (byRef) return { ref: key, result: byRef };
  const byId = results.filter((event) => event.action_id === key && event.execution_ref);
  if (byId.length > 0) return { ref: byId.at(-1)!.execution_ref!, result: byId.at(-1)! };
  const executed = results.filter((event) => event.execution_ref);
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
  const files = toolExecutionFiles(paths, ref);
  if (!files) throw usageError(`The tool execution record io/tool_executions/${ref} is missing.`, 'It may have been deleted.');
  if (flags.stdout || flags.stderr) {
    if (flags.stdout) await pipeFile(files.stdout);
    if (flags.stderr) await pipeFile(files.stderr);
    return 0;
  }
  const palette = paletteFor(process.stdout);
  const heading = (text: string) => process.stdout.write(`${palette.bold(`== ${text}`)}\n`);
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

/** `delta show run`, `delta show invocation N|ID` and `delta show action ID|N`: a run's totals, the exact records of one step. */
export async function showCommand(kind: string, key: string | undefined, flags: ShowFlags): Promise<number> {
  if (kind === 'run') {
    if (key !== undefined) throw usageError('delta show run takes no id.', 'Name the run with --run-id ID (default: the latest).');
    return showRun(locateRun(flags));
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
