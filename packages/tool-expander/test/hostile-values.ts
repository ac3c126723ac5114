// The injection corpus: hand-written hostile values, and systematic combinations of quote breakers with
// shell separators and substitutions. Every value must reach a tool as exactly one unchanged argument.

/** What an injection would run: it deletes the marker file in the workspace. */
const PAYLOAD = 'rm -f marker';

const HAND_WRITTEN = [
  // separators, substitutions and quotes
  '; rm -f marker',
  '$(rm -f marker)',
  '`rm -f marker`',
  '" ; rm -f marker ; "',
  "'; rm -f marker; '",
  'x\nrm -f marker\n',
  '&& rm -f marker',
  '| rm -f marker',
  '> marker',
  'a=b rm -f marker',
  '"$(rm -f marker)"',
  "'$(rm -f marker)'",
  // leading dashes: options of sh, of printf, of the program
  '--help',
  '-rf',
  '-',
  '--',
  '-e',
  '-n',
  '-c',
  '-c rm -f marker',
  '--version',
  '--output=marker',
  '-o marker',
  // parameter expansions and placeholders
  '${AGENT_HOME}',
  '${CWD}/x',
  '${HOME}',
  '${IFS}',
  '${x:-$(rm -f marker)}',
  '${!x}',
  '$HOME $1 $@',
  '$*',
  '$#',
  '$$',
  '$?',
  '$0',
  '$&',
  '%s%n%x',
  '%%',
  // globs, braces, tilde, comments, history
  '*',
  'mark?r',
  '[a-z]*',
  '[!x]*',
  '**/*',
  '.*',
  '{marker,x}',
  '~',
  '~root',
  '#',
  '# rm -f marker',
  '!',
  '!!',
  // paths
  'marker',
  './marker',
  '../marker',
  '/etc/passwd',
  // whitespace, escapes, control and unusual characters
  '',
  ' ',
  '  spaced  \t',
  '\t',
  '\r\n',
  '\n\n',
  '\\',
  '\\n',
  '\\0',
  '"',
  "'",
  '\u0001\u0002\u007f',
  '\u0007bell',
  '\u001b[31mred\u001b[0m',
  '\u202eevil',
  '\u00a0',
  'é ✓ 日本 😀',
];

const QUOTE_BREAKERS = ['', '"', "'", '\\', '"\'', '\\"'];
const SEPARATORS = [';', '|', '||', '&&', '&', '\n', '>', '<', '>>', '2>&1'];
const SUBSTITUTIONS = [`$(${PAYLOAD})`, `\`${PAYLOAD}\``, `<(${PAYLOAD})`, `\${x:=$(${PAYLOAD})}`, `$((1))$(${PAYLOAD})`];

const COMBINATIONS = [
  ...QUOTE_BREAKERS.flatMap((quote) => SEPARATORS.map((separator) => `${quote}${separator} ${PAYLOAD} ${separator}${quote}`)),
  ...QUOTE_BREAKERS.flatMap((quote) => SUBSTITUTIONS.map((substitution) => `${quote}${substitution}${quote}`)),
];

/** Long values: a command-line argument may hold up to 128 KiB on Linux; these stay well under it. */
const LONG = ['a'.repeat(100_000), `; ${PAYLOAD} $(x) \`y\` "' *\n`.repeat(2_000)];

export const HOSTILE_VALUES: readonly string[] = [...new Set([...HAND_WRITTEN, ...COMBINATIONS, ...LONG])];

/** A short, printable name for a value in a test title. */
export function label(value: string): string {
  const json = JSON.stringify(value);
  return json.length > 40 ? `${json.slice(0, 30)}... (${value.length} chars)` : json;
}
