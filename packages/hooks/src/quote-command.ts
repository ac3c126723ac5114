/** An argv as one line a person can paste into a shell, for `execution_meta/command.txt`. */
export function quoteCommand(argv: readonly string[]): string {
  return argv.map((part) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(part) ? part : `'${part.replaceAll("'", "'\\''")}'`)).join(' ');
}
