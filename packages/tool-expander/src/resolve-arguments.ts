import type { ExpandedParameter, ExpandedTool } from './expanded-tool.js';
import { describeFound, describeType, isOfType, listValues, type ParameterValue, toText } from './parameter-type.js';
import { ToolArgumentError } from './tool-argument-error.js';

/**
 * Checks the model's arguments against a tool's parameters and returns each parameter's value:
 * the argument as text, else its default as text, else undefined (an omitted optional parameter). A value
 * must be of the parameter's type and one of its enum values; null counts as omitted.
 */
export function resolveArguments(tool: ExpandedTool, args: unknown): Map<string, string | undefined> {
  const known = describeParameters(tool.parameters);
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolArgumentError(
      [`Expected a JSON object of arguments, found ${Array.isArray(args) ? 'an array' : typeof args}. ${known}`],
      { tool: tool.name },
    );
  }
  const given = args as Record<string, unknown>;
  const problems: string[] = [];
  let firstArgument: string | undefined;
  const problem = (argument: string, text: string) => {
    firstArgument ??= argument;
    problems.push(text);
  };

  const names = new Set(tool.parameters.map((parameter) => parameter.name));
  const unknown = Object.keys(given).filter((key) => !names.has(key));
  for (const key of unknown) problem(key, `Unknown argument '${key}'.`);

  const values = new Map<string, string | undefined>();
  for (const parameter of tool.parameters) {
    const value = Object.hasOwn(given, parameter.name) ? given[parameter.name] : undefined;
    if (value === undefined || value === null) {
      if (parameter.default !== undefined) values.set(parameter.name, toText(parameter.default));
      else if (parameter.required) problem(parameter.name, `Missing required argument '${parameter.name}'.`);
      else values.set(parameter.name, undefined);
      continue;
    }
    const text = argumentText(parameter, value);
    if (text.problem !== undefined) {
      problem(parameter.name, text.problem);
      continue;
    }
    if (parameter.inject_as !== 'stdin' && text.text.includes('\u0000')) {
      problem(parameter.name, `Argument '${parameter.name}' contains a NUL character, which a command-line argument cannot hold.`);
      continue;
    }
    values.set(parameter.name, text.text);
  }

  if (problems.length > 0) {
    throw new ToolArgumentError([...problems, known], {
      tool: tool.name,
      argument: firstArgument,
      hint: "Call the tool again with a JSON object whose keys are the known arguments, each value of the type the tool's schema gives.",
    });
  }
  return values;
}

/**
 * The text a value reaches the program as, or why it does not fit. A string parameter also takes a number
 * or a boolean, as its text (models send `5` for "5"); the other types take only their own JSON type.
 */
function argumentText(parameter: ExpandedParameter, value: unknown): { text: string; problem?: undefined } | { problem: string } {
  const lenient = parameter.type === 'string' && (typeof value === 'number' || typeof value === 'boolean');
  if (!lenient && !isOfType(value, parameter.type)) {
    return { problem: `Argument '${parameter.name}' must be ${describeType(parameter.type)}, found ${describeFound(value)}.` };
  }
  const text = toText(value as ParameterValue);
  const allowed = parameter.enum;
  if (allowed !== undefined && !allowed.some((option) => option === value || (parameter.type === 'string' && option === text))) {
    return { problem: `Argument '${parameter.name}' must be one of ${listValues(allowed)}, found ${describeFound(value)}.` };
  }
  return { text };
}

function describeParameters(parameters: readonly ExpandedParameter[]): string {
  if (parameters.length === 0) return 'This tool takes no arguments.';
  const list = parameters
    .map((parameter) => {
      const kind =
        parameter.enum !== undefined ? `one of ${listValues(parameter.enum)}; ` : parameter.type === 'string' ? '' : `${parameter.type}, `;
      return `${parameter.name} (${kind}${parameter.required ? 'required' : 'optional'})`;
    })
    .join(', ');
  return `Known arguments: ${list}.`;
}
