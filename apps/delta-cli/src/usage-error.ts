import { ConfigurationError } from '@delta/errors';

/** A command line the CLI cannot act on (exit code 2). */
export function usageError(message: string, hint: string): ConfigurationError {
  return new ConfigurationError(message, { code: 'USAGE', hint });
}
