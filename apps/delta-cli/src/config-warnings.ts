import type { LoadedAgent } from '@delta/engine';

/** One line on stderr per configuration warning, `warning: <file>:<line>:<column> <field>: <message>`, whatever -q says. */
export function printConfigWarning(warning: LoadedAgent['warnings'][number]): void {
  const where = warning.line === undefined ? warning.file : `${warning.file}:${warning.line}:${warning.column}`;
  process.stderr.write(`warning: ${where} ${warning.field}: ${warning.message}\n`);
}
