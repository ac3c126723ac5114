import { usageError } from './usage-error.js';

/**
 * `--ignore REGEX` (repeatable): JavaScript regular expressions of volatile text a replay leaves out of its
 * comparisons. A pattern that does not compile is a usage error naming it.
 */
export function ignorePatterns(value: string | number | boolean | readonly (string | number | boolean)[] | undefined): RegExp[] {
  if (value === undefined) return [];
  const given = (Array.isArray(value) ? value : [value]) as readonly (string | number | boolean)[];
  return given.map((pattern) => {
    if (typeof pattern === 'boolean' || String(pattern) === '') {
      throw usageError(
        '--ignore needs a regular expression.',
        "For example: delta replay -w ws --ignore '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z?'",
      );
    }
    try {
      return new RegExp(String(pattern), 'g');
    } catch (error) {
      throw usageError(
        `--ignore "${pattern}" is not a regular expression: ${(error as Error).message}.`,
        "Give a JavaScript regular expression, quoted for the shell: --ignore '/tmp/tmp\\.\\w+'",
      );
    }
  });
}
