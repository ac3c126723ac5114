import { quote } from 'shell-quote';

/**
 * A display form of an argv for command.txt and logs: pasted into a POSIX shell it runs the same
 * argv. It is never executed by the engine.
 */
export function quoteCommandLine(argv: readonly string[]): string {
  return quote(argv);
}
