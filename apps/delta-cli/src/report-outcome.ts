import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunResult } from '@delta/engine';
import { DeltaError } from '@delta/errors';
import { readLatestRunId } from '@delta/journal';
import { reportError } from './report-error.js';
import type { OutputFormat } from './result/output-format.js';
import { runResultObject } from './result/run-result.js';
import { runSummaryText } from './result/run-summary.js';

/** What stdout gets when the run stops: the answer for a person, `raw` bytes, one `json` object, a `text` summary, or --json's OUTCOME line. */
function writeResult(result: RunResult, output: { json?: boolean; format?: OutputFormat }): void {
  if (output.json) {
    process.stdout.write(`${JSON.stringify(outcomeLine(result))}\n`);
  } else if (output.format === 'json' || output.format === 'text') {
    // performance.now() counts from the start of this process: how long the command ran.
    const object = runResultObject(result, performance.now());
    process.stdout.write(output.format === 'json' ? `${JSON.stringify(object)}\n` : runSummaryText(object));
  } else if (result.status === 'COMPLETED' && result.finalAnswer) {
    // Two writes: `${answer}\n` would copy a long answer once more before it is encoded.
    process.stdout.write(result.finalAnswer);
    if (output.format !== 'raw') process.stdout.write('\n');
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
export function reportOutcome(result: RunResult, verbose: boolean, output: { json?: boolean; format?: OutputFormat } = {}): number {
  const write = (text: string) => process.stderr.write(text);
  writeResult(result, output);
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
        reportError(DeltaError.isInstance(error) ? withHint(error, hint) : (error ?? result.reason), verbose, write);
        if (!DeltaError.isInstance(error)) write(`${hint}\n`);
        write(`The run is recorded in ${result.paths.runDir}\n`);
      } else {
        reportError(result.error ?? result.reason, verbose, write);
        write(`The run is recorded in ${result.paths.runDir}\n`);
        write(`Retry it with: ${continueCommandFor(result)} -m "<what to do differently>"\n`);
      }
      break;
    case 'INTERRUPTED':
      write(`Run ${result.runId} stopped: ${result.reason}.\nResume it with: ${continueCommandFor(result)}\n`);
      break;
    case 'WAITING_FOR_INPUT': {
      const response = relative(process.cwd(), `${result.paths.interactionDir}/response.txt`) || 'response.txt';
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
