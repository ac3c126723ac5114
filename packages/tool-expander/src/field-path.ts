/** Joins a base path (`tools[2]`) and path segments into `tools[2].parameters[0].name`. */
export function fieldPath(base: string | undefined, segments: readonly PropertyKey[]): string {
  let path = base ?? '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? String(segment) : `.${String(segment)}`;
  }
  return path;
}

/** Describes a value found in the user's file for an error message: `number 5`, `"my tool"`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null (an empty value)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${String(value)}`;
}

/** Reads the value at a zod issue's path from the original input. */
export function valueAt(input: unknown, segments: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of segments) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}
