import type { ToolDefinitionIssue } from './tool-definition-error.js';

/** The JSON type of a parameter's value. Whatever the type, the value reaches the program as text. */
export const PARAMETER_TYPES = ['string', 'integer', 'number', 'boolean'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** A value a parameter can take: of its declared type, in an `enum:` or a `default:`. */
export type ParameterValue = string | number | boolean;

/** Whether `value` is of `type`. An integer must be exact in JSON and in JavaScript (a safe integer). */
export function isOfType(value: unknown, type: ParameterType): value is ParameterValue {
  if (type === 'integer') return typeof value === 'number' && Number.isSafeInteger(value);
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeof value === type;
}

/** A value as the program receives it: `5`, `0.25`, `true`, or the string itself. */
export function toText(value: ParameterValue): string {
  return String(value);
}

/** A value found where another was expected, for messages: `the string "5"`, `the number 1.5`, `true`, `an array`. */
export function describeFound(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === 'number') return `the number ${String(value)}`;
  if (typeof value === 'boolean') return String(value);
  return `a${typeof value === 'object' ? 'n' : ''} ${typeof value}`;
}

/** `an integer`, `a number`, `true or false`, `a string`. */
export function describeType(type: ParameterType): string {
  return type === 'boolean' ? 'true or false' : type === 'integer' ? 'an integer' : `a ${type}`;
}

/** `"GET", "POST" or "PUT"`, `1, 2 or 3`. */
export function listValues(values: readonly ParameterValue[]): string {
  const shown = values.map((value) => (typeof value === 'string' ? JSON.stringify(value) : String(value)));
  return shown.length === 1 ? (shown[0] as string) : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

export interface DeclaredType {
  type: ParameterType;
  enum?: ParameterValue[];
  default?: ParameterValue;
}

/**
 * Checks what a `parameters:` entry declares about a value (type, enum, default) against itself: every
 * enum value and the default are of the type, and the default is one of the enum. Problems go to `issues`.
 */
export function checkDeclaredType(
  entry: { name: string; type?: ParameterType | undefined; enum?: ParameterValue[] | undefined; default?: ParameterValue | undefined },
  at: (key: string) => string,
  issues: ToolDefinitionIssue[],
): DeclaredType {
  const type = entry.type ?? 'string';
  const declared: DeclaredType = { type };
  if (entry.enum !== undefined) {
    const wrong = entry.enum.find((value) => !isOfType(value, type));
    if (wrong !== undefined) {
      issues.push({
        field: at('enum'),
        message: `The enum of parameter '${entry.name}' holds a value that is not ${describeType(type)}.`,
        expected: `values of type ${type}`,
        found: describeFound(wrong),
        hint:
          type === 'string'
            ? `Quote it ("${String(wrong)}"), or declare type: ${typeof wrong === 'boolean' ? 'boolean' : 'number'}.`
            : `Write every value as ${describeType(type)}, or change type:.`,
      });
    } else {
      declared.enum = [...entry.enum];
    }
  }
  if (entry.default !== undefined) {
    if (!isOfType(entry.default, type)) {
      issues.push({
        field: at('default'),
        message: `The default of parameter '${entry.name}' is not ${describeType(type)}.`,
        expected: `a value of type ${type}`,
        found: describeFound(entry.default),
        hint:
          type === 'string'
            ? `Quote it (default: "${String(entry.default)}"), or declare the parameter's type (type: ${typeof entry.default === 'boolean' ? 'boolean' : 'integer or number'}).`
            : `Write the default as ${describeType(type)}.`,
      });
    } else if (declared.enum !== undefined && !declared.enum.includes(entry.default)) {
      issues.push({
        field: at('default'),
        message: `The default of parameter '${entry.name}' is not one of its enum values.`,
        expected: listValues(declared.enum),
        found: describeFound(entry.default),
        hint: 'Make the default one of the enum values, or add it to the enum.',
      });
    } else {
      declared.default = entry.default;
    }
  }
  return declared;
}
