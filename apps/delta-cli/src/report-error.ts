import { DeltaError, formatError } from '@delta/errors';

/** Prints an error for a person: one message with its hint, and the stack only with -v. */
export function reportError(error: unknown, verbose: boolean, write: (text: string) => void): number {
  write(`Error: ${formatError(error)}\n`);
  if (verbose && error instanceof Error && error.stack) write(`${error.stack}\n`);
  if (!DeltaError.isInstance(error) && !verbose) write('(run again with -v for the stack trace)\n');
  return DeltaError.isInstance(error) && error.kind === 'configuration' ? 2 : 1;
}
