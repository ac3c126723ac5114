import type { ExpandedTool } from './expanded-tool.js';
import { isEngineVariable } from './placeholder.js';
import type { ToolDefinitionWarning } from './tool-definition-error.js';

const WHOLE_PLACEHOLDER = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * The parameters of an exec: or command: tool that are whole arguments with no `--` before them. A
 * program reads an argument that starts with '-' as an option: `find ${directory}` given "-delete"
 * deletes the workspace.
 */
export function unguardedArguments(tool: ExpandedTool): string[] {
  if (tool.mode === 'command') {
    if (tool.command.includes('--')) return [];
    return tool.parameters.filter((parameter) => parameter.inject_as === 'argument').map((parameter) => parameter.name);
  }
  const names: string[] = [];
  for (const element of tool.command.slice(1)) {
    if (element === '--') break;
    const name = WHOLE_PLACEHOLDER.exec(element)?.[1];
    if (name !== undefined && !isEngineVariable(name) && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * One warning per tool naming the parameters a value starting with '-' would turn into an option. A
 * boolean, or an enum none of whose values starts with '-', cannot; nor can a declared integer or number
 * (at worst `-5`, and its sign is the author's to handle, which `--` would not change).
 */
export function argumentInjectionWarning(
  tool: ExpandedTool,
  unguarded: readonly string[],
  field: string,
): ToolDefinitionWarning | undefined {
  const exposed = tool.parameters.filter(
    (parameter) =>
      unguarded.includes(parameter.name) &&
      parameter.type === 'string' &&
      (parameter.enum === undefined || parameter.enum.some((value) => String(value).startsWith('-'))),
  );
  if (exposed.length === 0) return undefined;
  const list = exposed.map((parameter) => `\${${parameter.name}}`).join(', ');
  const first = `\${${exposed[0]?.name}}`;
  return {
    field,
    message:
      `${list} ${exposed.length === 1 ? 'is a whole argument' : 'are whole arguments'} with no -- before ${exposed.length === 1 ? 'it' : 'them'}: ` +
      `a value starting with '-' would be read as an option (find \${directory} given "-delete" deletes the workspace). ` +
      `Put -- before ${exposed.length === 1 ? 'it' : 'them'} (cat -- ${first}), join it to its option (--name=${first}), or declare an enum:.`,
  };
}
