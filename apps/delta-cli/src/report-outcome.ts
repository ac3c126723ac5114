import { relative } from 'node:path';
import type { RunResult } from '@delta/engine';
import { reportError } from './report-error.js';

/** Tells the person what happened: the answer on stdout, everything else on stderr; returns the exit code. */
export function reportOutcome(result: RunResult, verbose: boolean): number {
  const write = (text: string) => process.stderr.write(text);
  switch (result.status) {
    case 'COMPLETED':
      if (result.finalAnswer) process.stdout.write(`${result.finalAnswer}\n`);
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
