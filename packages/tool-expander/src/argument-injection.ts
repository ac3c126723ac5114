import type { ExpandedTool } from './expanded-tool.js';
import { optionCouldHarm, programName } from './option-danger.js';
import { isEngineVariable } from './placeholder.js';
import type { ToolDefinitionWarning } from './tool-definition-error.js';

const WHOLE_PLACEHOLDER = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** A parameter passed whole, with no `--` before it, to a program that may act on it as an option. */
export interface UnguardedArgument {
  name: string;
  /** The program that reads it (`find`), as written in the tool. */
  program: string;
}

/**
 * The parameters of an exec: or command: tool that are whole arguments with no `--` before them, of a
 * program whose options can do harm. A program reads an argument that starts with '-' as an option:
 * `find ${directory}` given "-delete" deletes the workspace; `echo ${message}` given "-n" only prints less.
 */
export function unguardedArguments(tool: ExpandedTool): UnguardedArgument[] {
  const program = programName(tool.command[0] ?? '');
  if (tool.mode === 'command') {
    if (tool.command.includes('--') || !optionCouldHarm(tool.command)) return [];
    return tool.parameters
      .filter((parameter) => parameter.inject_as === 'argument')
      .map((parameter) => ({ name: parameter.name, program }));
  }
  const found: UnguardedArgument[] = [];
  for (const [index, element] of tool.command.entries()) {
    if (index === 0) continue;
    if (element === '--') break;
    const name = WHOLE_PLACEHOLDER.exec(element)?.[1];
    if (name === undefined || isEngineVariable(name) || found.some((argument) => argument.name === name)) continue;
    if (optionCouldHarm(tool.command.slice(0, index))) found.push({ name, program });
  }
  return found;
}

/** Marks the argument-injection warning, so that an agent's loader can say it once for all its tools. */
export const ARGUMENT_INJECTION_WARNING = 'ARGUMENT_INJECTION';

/**
 * One warning per tool naming the parameters a value starting with '-' would turn into a harmful option. A
 * boolean, or an enum none of whose values starts with '-', cannot; nor can a declared integer or number
 * (at worst `-5`, and its sign is the author's to handle, which `--` would not change).
 */
export function argumentInjectionWarning(
  tool: ExpandedTool,
  unguarded: readonly UnguardedArgument[],
  field: string,
): ToolDefinitionWarning | undefined {
  if (tool.allow_option_values === true) return undefined;
  const exposed = unguarded.filter((argument) => {
    const parameter = tool.parameters.find((candidate) => candidate.name === argument.name);
    return (
      parameter !== undefined &&
      parameter.type === 'string' &&
      (parameter.enum === undefined || parameter.enum.some((value) => String(value).startsWith('-')))
    );
  });
  if (exposed.length === 0) return undefined;
  const list = exposed.map((argument) => `\${${argument.name}}`).join(', ');
  const programs = [...new Set(exposed.map((argument) => argument.program))].join(', ');
  const first = `\${${exposed[0]?.name}}`;
  return {
    field,
    code: ARGUMENT_INJECTION_WARNING,
    subject: `${tool.name} (${list} to ${programs})`,
    message:
      `${list} ${exposed.length === 1 ? 'is a whole argument' : 'are whole arguments'} of ${programs} with no -- before ${exposed.length === 1 ? 'it' : 'them'}: ` +
      `a value starting with '-' would be read as an option (find \${directory} given "-delete" deletes the workspace). ` +
      `Put -- before ${exposed.length === 1 ? 'it' : 'them'} (${exposed[0]?.program} -- ${first}), join it to its option (--name=${first}), declare an enum:, ` +
      `or, if no option of ${programs} can do harm here, say so with allow_option_values: true.`,
  };
}
