/** The part of JSON Schema that docs/schemas/*.schema.json use. */
export interface Schema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  oneOf?: Schema[];
  required?: string[];
  properties?: Record<string, Schema>;
  minimum?: number;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

/**
 * What in `value` breaks `schema`, as dot-paths with the reason; an empty list when it conforms. Strict on
 * purpose: an object may hold only the properties its schema documents, so the docs cannot fall behind.
 */
export function schemaProblems(schema: Schema, value: unknown, path = '$'): string[] {
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((option) => schemaProblems(option, value, path).length === 0);
    return matching.length === 1 ? [] : [`${path}: matches ${matching.length} of the oneOf choices, not exactly 1`];
  }
  if ('const' in schema && value !== schema.const) return [`${path}: is ${JSON.stringify(value)}, not ${JSON.stringify(schema.const)}`];
  if (schema.enum && !schema.enum.includes(value))
    return [`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number')))
      return [`${path}: is ${actual}, not ${allowed.join(' or ')}`];
  }
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) return [`${path}: ${value} < ${schema.minimum}`];
  if (typeOf(value) !== 'object' || schema.properties === undefined) return [];
  const object = value as Record<string, unknown>;
  const problems = (schema.required ?? []).filter((key) => !(key in object)).map((key) => `${path}.${key}: is missing`);
  for (const [key, item] of Object.entries(object)) {
    const property = schema.properties[key];
    if (property === undefined) problems.push(`${path}.${key}: is not in the schema`);
    else problems.push(...schemaProblems(property, item, `${path}.${key}`));
  }
  return problems;
}
