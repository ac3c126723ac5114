/** Why the real API would answer 400, with the `param` and `code` it would name. */
export interface RequestProblem {
  message: string;
  param: string | null;
  code: string | null;
}

export function problem(message: string, param: string | null = null, code: string | null = null): RequestProblem {
  return { message, param, code };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
