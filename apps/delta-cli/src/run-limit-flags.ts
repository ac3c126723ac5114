import { usageError } from './usage-error.js';

/** A flag that takes a whole number of at least 1 (`--concurrency 8`); undefined when it is not given. */
export function parseWholeNumber(flag: string, value: string | number | undefined, example: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 1) {
    throw usageError(`${flag} must be a whole number of at least 1, got "${value}".`, `For example: ${example}`);
  }
  return number;
}
