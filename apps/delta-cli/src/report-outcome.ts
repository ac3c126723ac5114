import { relative } from 'node:path';
import type { RunResult } from '@delta/engine';
import { reportError } from './report-error.js';

/**
 * Tells the person what happened: the answer on stdout, everything else on stderr; returns the exit code.
 * With --json, stdout gets one last JSON line instead of the answer: `{"type":"OUTCOME", ...}`.
 */
export function reportOutcome(result: RunResult, verbose: boolean, output: { json?: boolean } = {}): number {
  const write = (text: string) => process.stderr.write(text);
  if (output.json) process.stdout.write(`${JSON.stringify(outcomeLine(result))}\n`);
  switch (result.status) {
    case 'COMPLETED':
      if (result.finalAnswer && !output.json) process.stdout.write(`${result.finalAnswer}\n`);
      break;
    case 'FAILED':
      reportError(result.error ?? result.reason, verbose, write);
      write(`The run is recorded in ${result.paths.runDir}\n`);
      write(`Retry it with: delta continue -w ${result.workDir} -m "<what to do differently>"\n`);
      break;
    case 'INTERRUPTED':
      write(`Run ${result.runId} stopped: ${result.reason}.\nResume it with: delta continue -w ${result.workDir}\n`);
      break;
    case 'WAITING_FOR_INPUT': {
      const response = relative(process.cwd(), `${result.paths.interactionDir}/response.txt`) || 'response.txt';
      write(`${result.reason}\n`);
      write(`Agent paused. Provide response in ${response}\n`);
      write(`Or use: delta continue -w ${result.workDir} -m <response>\n`);
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
