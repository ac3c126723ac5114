import type { ConfigProblem } from '@delta/yaml-config';

/** A tool's argument-injection warning, kept aside: the agent says it once, for the tools it keeps. */
export type InjectionWarning = ConfigProblem & { subject: string };

/**
 * The argument-injection warnings of an agent's tools said once: a single tool's as it is, several as one
 * warning at the first of them that lists each tool with where it is, then the explanation and the fixes.
 */
export function oneArgumentInjectionWarning(warnings: readonly InjectionWarning[]): ConfigProblem | undefined {
  const [first] = warnings;
  if (first === undefined) return undefined;
  const { subject: _subject, ...problem } = first;
  if (warnings.length === 1) return problem;
  const where = (warning: InjectionWarning) =>
    `${warning.subject} at ${warning.line === undefined ? warning.file : `${warning.file}:${warning.line}`} ${warning.field}`;
  return {
    ...problem,
    message:
      `${warnings.length} tools pass a parameter as a whole argument, with no -- before it, to a program that may act on it as an option: ` +
      `${warnings.map(where).join('; ')}. A value starting with '-' would be read as an option (find \${directory} given "-delete" deletes the workspace). ` +
      'For each: put -- before it (find -- ${directory}), join it to its option (--name=${directory}), declare an enum:, ' +
      'or, if no option of that program can do harm there, say so with allow_option_values: true (docs/tools.md, "Values that look like options").',
  };
}
