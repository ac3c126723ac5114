import { ConfigurationError } from './delta-error.js';

/**
 * Several configuration errors found in one check, reported together as a compiler reports every error: the
 * message numbers them, each with its fix; `errors` holds each one with its own `file`, `field` and `hint`.
 */
export class ConfigurationErrors extends ConfigurationError {
  constructor(
    readonly subject: string,
    readonly errors: readonly ConfigurationError[],
  ) {
    const first = errors[0]!;
    const lines = errors.map((error, index) => {
      const indent = ' '.repeat(String(index + 1).length + 4);
      const fix = error.hint === undefined ? '' : `\n${indent}Fix: ${error.hint.replaceAll('\n', `\n${indent}     `)}`;
      return `  ${index + 1}. ${error.message.replaceAll('\n', `\n${indent}`)}${fix}`;
    });
    super(`${subject} has ${errors.length} configuration errors:\n${lines.join('\n')}`, {
      code: errors.every((error) => error.code === first.code) ? first.code : 'CONFIG_INVALID',
      file: first.file,
      field: first.field,
      hint: 'Fix each one as its line says; every error found is listed, so one edit-and-rerun round is enough.',
      cause: first,
    });
  }
}
