import { createReadStream, existsSync } from 'node:fs';
import { once } from 'node:events';
import type { ActionResultEvent, RunPaths } from '@delta/journal';
import {
  listInvocationIds,
  paletteFor,
  readInvocationRequestBytes,
  readInvocationResponseText,
  readRunJournal,
  showAction as showActionText,
  showCallThatDidNotRun,
  showInvocation as showInvocationText,
  showOutput,
  showRun,
  toolExecutionFiles,
} from '@delta/views';
import { locateRun, type RunLocation } from './inspect/locate-run.js';
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

const terminal = () => showOutput(paletteFor(process.stdout, process.env), (text) => process.stdout.write(text), pipeFile);

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
  if (!flags.request && !flags.response) return showInvocationText(paths, id, terminal());
  const request = readInvocationRequestBytes(paths, id);
  const response = readInvocationResponseText(paths, id);
  if (flags.request && request) process.stdout.write(request);
  if (flags.response && response) process.stdout.write(response);
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
  if (ref === undefined) return showCallThatDidNotRun(result!, terminal());
  const files = toolExecutionFiles(paths, ref);
  if (!files) throw usageError(`The tool execution record io/tool_executions/${ref} is missing.`, 'It may have been deleted.');
  if (flags.stdout || flags.stderr) {
    if (flags.stdout) await pipeFile(files.stdout);
    if (flags.stderr) await pipeFile(files.stderr);
    return 0;
  }
  return showActionText(files, result, terminal());
}

/** `delta show run`, `delta show invocation N|ID` and `delta show action ID|N`: a run's totals, the exact records of one step. */
export async function showCommand(kind: string, key: string | undefined, flags: ShowFlags): Promise<number> {
  if (kind === 'run') {
    if (key !== undefined) throw usageError('delta show run takes no id.', 'Name the run with --run-id ID (default: the latest).');
    const tools = { ...(await import('@delta/engine')), ...(await import('@delta/command-runner')) };
    return showRun(locateRun(flags), terminal(), { verbose: flags.verbose === true, tools });
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
