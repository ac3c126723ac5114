import type { RunPaths } from '@delta/journal';
import {
  type Found,
  findAction,
  findInvocation,
  paletteFor,
  pipeFileTo,
  readInvocationRequestBytes,
  readInvocationResponseText,
  showAction as showActionText,
  showCallThatDidNotRun,
  showInvocation as showInvocationText,
  showOutput,
  showRun,
  showFileOn,
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

/** A tool's output on stdout: `--stdout` byte for byte; in `delta show action`, its control characters shown on a terminal. */
const pipeFile = (file: string) => pipeFileTo(process.stdout, file);
const shownFile = (file: string) => showFileOn(process.stdout, file);
const terminal = () => showOutput(paletteFor(process.stdout, process.env), (text) => process.stdout.write(text), shownFile);

/** What `found` names, or a usage error with its message and fix. */
function named<T>(answer: Found<T>): T {
  if ('problem' in answer) throw usageError(answer.problem, answer.hint);
  return answer.found;
}

async function showInvocation(paths: RunPaths, key: string, flags: ShowFlags): Promise<number> {
  const id = named(findInvocation(paths, key));
  if (!flags.request && !flags.response) return showInvocationText(paths, id, terminal());
  const request = readInvocationRequestBytes(paths, id);
  const response = readInvocationResponseText(paths, id);
  if (flags.request && request) process.stdout.write(request);
  if (flags.response && response) process.stdout.write(response);
  return 0;
}

async function showAction(paths: RunPaths, key: string, flags: ShowFlags): Promise<number> {
  const { ref, result } = named(findAction(paths, key));
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
