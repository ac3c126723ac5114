import type { McpToolDefinition } from '@delta/mcp';
import { ToolArgumentError } from '@delta/tool-expander';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';
const JSON_TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];

interface PropertySchema {
  types?: JsonType[];
  enum?: unknown[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function propertySchema(value: unknown): PropertySchema {
  if (!isObject(value)) return {};
  const declared = Array.isArray(value.type) ? value.type : value.type === undefined ? [] : [value.type];
  const types = declared.filter((type): type is JsonType => typeof type === 'string' && JSON_TYPES.includes(type));
  return {
    ...(types.length > 0 ? { types } : {}),
    ...(Array.isArray(value.enum) ? { enum: value.enum } : {}),
  };
}

function isOfJsonType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    case 'null':
      return value === null;
  }
}

function found(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * Checks the model's arguments against an MCP tool's input schema, as a native tool's are checked against its
 * parameters: required arguments, each argument's JSON type and enum, and unknown arguments when the schema
 * says `additionalProperties: false`. Only the top level is checked; the server judges what lies deeper.
 * Throws the ToolArgumentError the model is shown, so that it can correct the call.
 */
export function checkMcpArguments(tool: McpToolDefinition, args: Record<string, unknown>): void {
  const schema = tool.inputSchema;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const problems: string[] = [];
  let first: string | undefined;
  const problem = (argument: string, text: string) => {
    first ??= argument;
    problems.push(text);
  };
  if (schema.additionalProperties === false) {
    for (const key of Object.keys(args)) if (!Object.hasOwn(properties, key)) problem(key, `Unknown argument '${key}'.`);
  }
  for (const name of required) {
    if (!Object.hasOwn(args, name) || args[name] === undefined) problem(name, `Missing required argument '${name}'.`);
  }
  for (const [name, value] of Object.entries(args)) {
    if (!Object.hasOwn(properties, name)) continue;
    const property = propertySchema(properties[name]);
    if (property.types && !property.types.some((type) => isOfJsonType(value, type))) {
      problem(name, `Argument '${name}' must be ${property.types.map(article).join(' or ')}, found ${found(value)}.`);
    } else if (property.enum && !property.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
      problem(
        name,
        `Argument '${name}' must be one of ${property.enum.map((option) => JSON.stringify(option)).join(', ')}, found ${found(value)}.`,
      );
    }
  }
  if (problems.length === 0) return;
  const known = Object.keys(properties).map((name) => {
    const { types } = propertySchema(properties[name]);
    return `${name} (${types ? `${types.join(' or ')}, ` : ''}${required.includes(name) ? 'required' : 'optional'})`;
  });
  throw new ToolArgumentError(
    [...problems, known.length === 0 ? 'This tool takes no arguments.' : `Known arguments: ${known.join(', ')}.`],
    {
      tool: tool.name,
      argument: first,
      hint: "Call the tool again with a JSON object whose keys are the known arguments, each value of the type the tool's schema gives.",
    },
  );
}
