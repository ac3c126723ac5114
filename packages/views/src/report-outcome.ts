import { relative } from 'node:path';
import type { RunResult } from '@delta/engine';
import { DeltaError } from '@delta/errors';
import { readLatestRunId } from '@delta/journal';
import type { OutputFormat } from './result/output-format.js';
import { runResultObject } from './result/run-result.js';
import { runSummaryText } from './result/run-summary.js';
import { visibleControls } from './inspect/visible-controls.js';

/** How a run's outcome is told: -v, --json or --format, and where it goes. */
export interface OutcomeOptions {
  json?: boolean;
  format?: OutputFormat;
  /** How long the command has run (`--format json` and `text` report it). */
  elapsedMs: number;
  /** The directory paths are shown relative to. */
  cwd: string;
  /** The result: the answer, the JSON object or the summary. */
  stdout: (text: string) => void;
  /** stdout is a terminal: the answer's control characters (and the summary's) are shown there, not obeyed; `raw` and `json` are as they are. */
  terminal?: boolean;
  /** Everything else: what went wrong, how to resume, where to answer. */
  stderr: (text: string) => void;
  /** Tells what went wrong (a DeltaError with its hint, or the reason) on stderr, as the caller prints errors. */
  printError: (error: unknown) => void;
}

/** What stdout gets when the run stops: the answer for a person, `raw` bytes, one `json` object, a `text` summary, or --json's OUTCOME line. */
function writeResult(result: RunResult, options: OutcomeOptions): void {
  const write = options.stdout;
  if (options.json) {
    write(`${JSON.stringify(outcomeLine(result))}\n`);
  } else if (options.format === 'json' || options.format === 'text') {
    const object = runResultObject(result, options.elapsedMs);
    if (options.format === 'json') write(`${JSON.stringify(object)}\n`);
    else write(options.terminal ? visibleControls(runSummaryText(object)) : runSummaryText(object));
  } else if (result.status === 'COMPLETED' && result.finalAnswer) {
    // Two writes: `${answer}\n` would copy a long answer once more before it is encoded.
    write(options.terminal && options.format !== 'raw' ? visibleControls(result.finalAnswer) : result.finalAnswer);
    if (options.format !== 'raw') write('\n');
  }
}

/** `delta continue -w DIR`, naming the run too when it is not the workspace's latest (runs started side by side). */
function continueCommandFor(result: RunResult): string {
  const latest = readLatestRunId(result.workDir);
  return `delta continue -w ${result.workDir}${latest === result.runId ? '' : ` --run-id ${result.runId}`}`;
}

/** A copy of the error with another hint (the error itself is left as it is). */
function withHint(error: DeltaError, hint: string): DeltaError {
  const copy = Object.create(Object.getPrototypeOf(error), Object.getOwnPropertyDescriptors(error)) as DeltaError;
  Object.defineProperty(copy, 'hint', { value: hint, enumerable: true });
  return copy;
}

/**
 * Tells the person what happened: the result on stdout (see writeResult), everything else on stderr;
 * returns the exit code.
 */
export function reportOutcome(result: RunResult, options: OutcomeOptions): number {
  const { printError, stderr: write } = options;
  writeResult(result, options);
  switch (result.status) {
    case 'COMPLETED':
      break;
    case 'FAILED':
      if (result.resumable) {
        // The endpoint failed, not the conversation: one way forward, the same request again, with no new message.
        const command = `\`${continueCommandFor(result)}\``;
        const error = result.error;
        const own = DeltaError.isInstance(error) ? (error.hint ?? '') : '';
        // The engine's hint names no workspace (`delta continue -w <workspace>`): this one does, and only once.
        const hint = own.includes('`delta continue -w <workspace>`')
          ? own.replace('`delta continue -w <workspace>`', command)
          : `${own}${own === '' ? 'Once it works again, ' : ' Then '}${command} sends the same request again.`;
        printError(DeltaError.isInstance(error) ? withHint(error, hint) : (error ?? result.reason));
        if (!DeltaError.isInstance(error)) write(`${hint}\n`);
        write(`The run is recorded in ${result.paths.runDir}\n`);
      } else {
        printError(result.error ?? result.reason);
        write(`The run is recorded in ${result.paths.runDir}\n`);
        write(`Retry it with: ${continueCommandFor(result)} -m "<what to do differently>"\n`);
      }
      break;
    case 'INTERRUPTED':
      write(`Run ${result.runId} stopped: ${result.reason}.\nResume it with: ${continueCommandFor(result)}\n`);
      break;
    case 'WAITING_FOR_INPUT': {
      const response = relative(options.cwd, `${result.paths.interactionDir}/response.txt`) || 'response.txt';
      write(`${result.reason}\n`);
      write(`Agent paused. Provide response in ${response}\n`);
      write(`Or use: ${continueCommandFor(result)} -m <response>\n`);
      break;
    }
  }
  return result.exitCode;
}

/** The last line of `--json` output. */
function outcomeLine(result: RunResult): Record<string, unknown> {
  return {
    type: 'OUTCOME',
    run_id: result.runId,
    work_dir: result.workDir,
    status: result.status,
    exit_code: result.exitCode,
    ...(result.reason ? { reason: result.reason } : {}),
    ...(result.status === 'COMPLETED' ? { final_answer: result.finalAnswer ?? '' } : {}),
  };
}
