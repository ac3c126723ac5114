import { performance } from 'node:perf_hooks';
import type { RunResult } from '@delta/engine';
import { type OutputFormat, reportOutcome as tell } from '@delta/views';
import { reportError } from './report-error.js';

/** Tells the person how the run ended: the result on stdout, the rest on stderr; returns the exit code. */
export function reportOutcome(result: RunResult, verbose: boolean, output: { json?: boolean; format?: OutputFormat } = {}): number {
  const stderr = (text: string) => process.stderr.write(text);
  return tell(result, {
    ...output,
    // performance.now() counts from the start of this process: how long the command ran.
    elapsedMs: performance.now(),
    cwd: process.cwd(),
    stdout: (text) => process.stdout.write(text),
    terminal: process.stdout.isTTY === true,
    stderr,
    printError: (error) => reportError(error, verbose, stderr),
  });
}
