import type { Command } from 'cac';

/** cac's own key for an option: `run-id` -> `runId` (the part before a dot, as cac nests `--a.b`). */
function optionKey(name: string): string {
  return name.split('.')[0]!.replaceAll(/([a-z])-([a-z])/g, (_, before: string, after: string) => before + after.toUpperCase());
}

/** The option as it was on the command line (`--run-id`, `--no-color`, `-x`), found by cac's key for it. */
export function optionAsTyped(key: string, argv: readonly string[]): string {
  const end = argv.indexOf('--');
  for (const argument of end < 0 ? argv : argv.slice(0, end)) {
    if (argument.startsWith('--')) {
      const name = argument.slice(2).split('=')[0]!;
      // mri reads `--no-foo` as foo=false.
      if (optionKey(name) === key || (name.startsWith('no-') && optionKey(name.slice(3)) === key)) return `--${name}`;
    } else if (argument.startsWith('-') && key.length === 1 && argument.slice(1).split('=')[0]!.includes(key)) {
      return `-${key}`;
    }
  }
  return key.length === 1 ? `-${key}` : `--${key.replaceAll(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * cac names an unknown option by its camelCased key (`--runId` for `--run-id`), a name the user never
 * typed; this puts back what they typed.
 */
export function cacMessageAsTyped(message: string, argv: readonly string[]): string {
  return message.replace(/^Unknown option `-{1,2}([^`]+)`/, (_, key: string) => `Unknown option \`${optionAsTyped(key, argv)}\``);
}

/** An option as cac describes it: `-m, --message <text>`, with its names camelCased (`message`). */
type DeclaredOption = Pick<Command['options'][number], 'rawName' | 'name' | 'isBoolean'>;

/**
 * The values of options that take one, as typed, where mri read a number: it turns `--run-id 007` into 7
 * and `-m 1e3` into 1000. The last occurrence wins, as with mri. Other values are left to cac (a missing
 * value stays `true`, which cac reports).
 */
export function optionValuesAsTyped(
  declared: readonly DeclaredOption[],
  argv: readonly string[],
  parsed: Record<string, unknown>,
): Record<string, string> {
  const end = argv.indexOf('--');
  const args = end < 0 ? argv : argv.slice(0, end);
  const values: Record<string, string> = {};
  for (const option of declared) {
    if (option.isBoolean || typeof parsed[option.name] !== 'number') continue;
    const spellings = option.rawName
      .replace(/[<[].*$/, '')
      .split(',')
      .map((name) => name.trim());
    args.forEach((argument, index) => {
      const spelling = spellings.find((name) => argument === name || argument.startsWith(`${name}=`));
      if (spelling === undefined) return;
      const value = argument === spelling ? args[index + 1] : argument.slice(spelling.length + 1);
      if (value !== undefined) values[option.name] = value;
    });
  }
  return values;
}
