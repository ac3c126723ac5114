/** A configuration warning as the engine reports it (a ConfigProblem of @delta/yaml-config). */
export interface ConfigWarning {
  file: string;
  line?: number;
  column?: number;
  field: string;
  message: string;
}

/** One line on stderr per warning, `warning: <file>:<line>:<column> <field>: <message>`, whatever -q says. */
export function printConfigWarning(warning: ConfigWarning): void {
  const where = warning.line === undefined ? warning.file : `${warning.file}:${warning.line}:${warning.column}`;
  process.stderr.write(`warning: ${where} ${warning.field}: ${warning.message}\n`);
}
