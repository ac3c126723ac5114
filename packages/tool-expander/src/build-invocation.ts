import type { ExpandedParameter, ExpandedTool } from './expanded-tool.js';
import { type EngineVariables, isEngineVariable, PLACEHOLDER_REFERENCE } from './placeholder.js';
import { quoteCommandLine } from './quote-command-line.js';
import { resolveArguments } from './resolve-arguments.js';
import { ToolDefinitionError } from './tool-definition-error.js';

/** A process to start: run `file` with `args` directly (never through a shell), feeding `stdin`. */
export interface Invocation {
  file: string;
  args: string[];
  /** The stdin parameter's value; undefined when the tool has none or it was omitted. */
  stdin?: string;
  /** A shell-quoted display form of file and args, for command.txt and logs. */
  commandLine: string;
}

/**
 * Builds the argv and stdin for one call of an expanded tool. Values are placed into argv elements
 * and never parsed: not by this function (a single substitution pass, so a value containing
 * `${AGENT_HOME}` stays literal) and not by a shell (a shell: script is fixed at expansion time and
 * reaches values only through `"$1"`-style parameters).
 *
 * @throws ToolArgumentError when the arguments do not fit the parameters (the model can retry).
 */
export function buildInvocation(tool: ExpandedTool, args: Record<string, unknown>, variables: EngineVariables): Invocation {
  const values = resolveArguments(tool, args);
  const substitute = (element: string, names: 'engine' | 'all'): string | undefined => {
    let omitted = false;
    const result = element.replace(PLACEHOLDER_REFERENCE, (reference, name: string) => {
      if (isEngineVariable(name)) return variables[name];
      if (names === 'engine') return reference;
      if (!values.has(name)) throw unknownReference(tool, name);
      const value = values.get(name);
      if (value === undefined) omitted = true;
      return value ?? '';
    });
    return omitted ? undefined : result;
  };

  let argv: string[];
  if (tool.mode === 'exec') {
    // Each element is one argv element; an element holding an omitted optional parameter is dropped.
    argv = tool.command.flatMap((element) => substitute(element, 'all') ?? []);
  } else if (tool.mode === 'shell') {
    // Never touch the script (index 2): it was fixed at expansion time.
    argv = tool.command.map((element, index) => (index <= 2 ? element : (substitute(element, 'engine') as string)));
    for (const parameter of byPosition(tool.parameters)) argv.push(values.get(parameter.name) ?? '');
  } else {
    argv = tool.command.map((element) => substitute(element, 'engine') as string);
    for (const parameter of tool.parameters) {
      const value = values.get(parameter.name);
      if (parameter.inject_as === 'option' && value !== undefined) argv.push(parameter.option_name as string, value);
    }
    for (const parameter of byPosition(tool.parameters)) {
      const value = values.get(parameter.name);
      if (value !== undefined) argv.push(value);
    }
  }

  const [file, ...rest] = argv;
  if (file === undefined) throw unknownReference(tool, '(no program)');
  const stdinParameter = tool.parameters.find((parameter) => parameter.inject_as === 'stdin');
  const stdin = stdinParameter === undefined ? undefined : values.get(stdinParameter.name);
  return { file, args: rest, ...(stdin === undefined ? {} : { stdin }), commandLine: quoteCommandLine(argv) };
}

function byPosition(parameters: readonly ExpandedParameter[]): ExpandedParameter[] {
  return parameters
    .filter((parameter) => parameter.inject_as === 'argument')
    .sort((left, right) => (left.position ?? 0) - (right.position ?? 0));
}

/** Only a hand-built ExpandedTool can get here; expandTool never produces one. */
function unknownReference(tool: ExpandedTool, name: string): ToolDefinitionError {
  return new ToolDefinitionError(
    [
      {
        field: 'command',
        message: `Tool '${tool.name}' references \${${name}} in command, which is not one of its parameters.`,
        expected: 'placeholders for declared parameters, AGENT_HOME or CWD',
        found: JSON.stringify(tool.command),
        hint: 'Build the ExpandedTool with expandTool().',
      },
    ],
    { tool: tool.name },
  );
}
