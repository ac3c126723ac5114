import { DeltaError, exitCodeOf, formatError } from '@delta/errors';

/**
 * Prints an error for a person: one message with its hint; with -v also its code (see docs/errors.md)
 * and the stack. Returns the exit code the error leads to.
 */
export function reportError(error: unknown, verbose: boolean, write: (text: string) => void): number {
  write(`Error: ${formatError(error)}\n`);
  if (verbose && DeltaError.isInstance(error)) write(`Error code: ${error.code}\n`);
  if (verbose && error instanceof Error && error.stack) write(`${error.stack}\n`);
  if (!DeltaError.isInstance(error) && !verbose) write('(run again with -v for the stack trace)\n');
  return exitCodeOf(error);
}
