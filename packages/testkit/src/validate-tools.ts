import { type RequestProblem, describeType, isObject, problem } from './request-problem.js';

const functionName = /^[a-zA-Z0-9_-]{1,64}$/;

/** The `tools` array: each entry `{type: 'function', function: {name, description?, parameters?}}`. */
export function validateTools(tools: unknown): RequestProblem | null {
  if (!Array.isArray(tools)) {
    return problem(
      `Invalid type for 'tools': expected an array of objects, but got ${describeType(tools)} instead.`,
      'tools',
      'invalid_type',
    );
  }
  if (tools.length === 0) {
    return problem(
      "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'tools',
      'empty_array',
    );
  }
  for (const [index, tool] of tools.entries()) {
    const at = `tools[${index}]`;
    if (!isObject(tool))
      return problem(`Invalid type for '${at}': expected an object, but got ${describeType(tool)} instead.`, at, 'invalid_type');
    if (tool.type !== 'function') {
      return problem(
        `Invalid value for '${at}.type': expected 'function', but got ${JSON.stringify(tool.type) ?? 'nothing'}.`,
        `${at}.type`,
        'invalid_value',
      );
    }
    const definition = tool.function;
    if (!isObject(definition))
      return problem(`Missing required parameter: '${at}.function'.`, `${at}.function`, 'missing_required_parameter');
    if (typeof definition.name !== 'string') {
      return problem(`Missing required parameter: '${at}.function.name'.`, `${at}.function.name`, 'missing_required_parameter');
    }
    if (!functionName.test(definition.name)) {
      return problem(
        `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$', got '${definition.name}'.`,
        `${at}.function.name`,
        'invalid_value',
      );
    }
    if (definition.description !== undefined && typeof definition.description !== 'string') {
      return problem(`Invalid type for '${at}.function.description': expected a string.`, `${at}.function.description`, 'invalid_type');
    }
    const parameters = definition.parameters;
    if (parameters === undefined) continue;
    if (!isObject(parameters)) {
      return problem(
        `Invalid type for '${at}.function.parameters': expected an object, but got ${describeType(parameters)} instead.`,
        `${at}.function.parameters`,
        'invalid_type',
      );
    }
    if (parameters.type !== undefined && parameters.type !== 'object') {
      return problem(
        `Invalid schema for function '${definition.name}': schema must be a JSON Schema of 'type: "object"', got 'type: ${JSON.stringify(parameters.type)}'.`,
        `${at}.function.parameters`,
        'invalid_function_parameters',
      );
    }
  }
  return null;
}
