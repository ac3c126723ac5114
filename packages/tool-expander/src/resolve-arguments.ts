import type { ExpandedParameter, ExpandedTool } from './expanded-tool.js';
import { ToolArgumentError } from './tool-argument-error.js';

/**
 * Checks the model's arguments against a tool's parameters and returns each parameter's value:
 * the argument as a string, else its default, else undefined (an omitted optional parameter).
 * Numbers and booleans become strings with String(); null counts as omitted.
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
      if (parameter.default !== undefined) values.set(parameter.name, parameter.default);
      else if (parameter.required) problem(parameter.name, `Missing required argument '${parameter.name}'.`);
      else values.set(parameter.name, undefined);
      continue;
    }
    if (typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol') {
      problem(
        parameter.name,
        `Argument '${parameter.name}' must be a string, found ${Array.isArray(value) ? 'an array' : `a ${typeof value}`}.`,
      );
      continue;
    }
    const text = String(value);
    if (parameter.inject_as !== 'stdin' && text.includes('\u0000')) {
      problem(parameter.name, `Argument '${parameter.name}' contains a NUL character, which a command-line argument cannot hold.`);
      continue;
    }
    values.set(parameter.name, text);
  }

  if (problems.length > 0) {
    throw new ToolArgumentError([...problems, known], {
      tool: tool.name,
      argument: firstArgument,
      hint: 'Call the tool again with a JSON object whose keys are the known arguments; all values are strings.',
    });
  }
  return values;
}

function describeParameters(parameters: readonly ExpandedParameter[]): string {
  if (parameters.length === 0) return 'This tool takes no arguments.';
  const list = parameters.map((parameter) => `${parameter.name} (${parameter.required ? 'required' : 'optional'})`).join(', ');
  return `Known arguments: ${list}.`;
}
