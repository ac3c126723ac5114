import { createDeltaError, type DeltaError } from './delta-error.js';
import type { DeltaErrorCode } from './error-codes.js';

/** One problem a schema found: where (keys and indexes) and what. zod's issues have this shape. */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * What checks a parsed value. A zod schema is one as it is: only `safeParse` is used, so this package
 * needs no zod, and a package that stands alone (sessions) can pass a small hand-written one.
 */
export interface SafeParseSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

export interface ParseJsonOptions {
  /** The error's code when the text is not valid JSON or does not fit the schema; `JSON_INVALID` by default. */
  code?: DeltaErrorCode;
  /** What the reader can do about it. */
  hint?: string;
}

export type SafeParseJsonResult<T> = { success: true; data: T } | { success: false; error: DeltaError };

const shownIssues = 5;

/** `['tools', 2, 'exec']` -> `tools[2].exec`; the empty path is `(top level)`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text === '' ? '(top level)' : text;
}

function describeIssues(source: string, issues: readonly SchemaIssue[]): string {
  const lines = issues.slice(0, shownIssues).map((issue) => `field ${formatFieldPath(issue.path)}: ${issue.message}`);
  if (lines.length === 1) return `${source}: ${lines[0]}`;
  const more = issues.length > shownIssues ? `\n  ... and ${issues.length - shownIssues} more` : '';
  return `${source} does not have the expected shape:\n${lines.map((line) => `  - ${line}`).join('\n')}${more}`;
}

/**
 * Parses JSON read from `source` (a file's path, or what the text is, such as "the session supervisor's
 * reply"), then checks it against `schema` when one is given. Never throws: a bad text gives a DeltaError
 * that names the source and, for a wrong shape, the field.
 */
export function safeParseJson<T>(
  text: string,
  source: string,
  options: ParseJsonOptions & { schema: SafeParseSchema<T> },
): SafeParseJsonResult<T>;
export function safeParseJson(text: string, source: string, options?: ParseJsonOptions): SafeParseJsonResult<unknown>;
export function safeParseJson(
  text: string,
  source: string,
  options: ParseJsonOptions & { schema?: SafeParseSchema<unknown> } = {},
): SafeParseJsonResult<unknown> {
  const code = options.code ?? 'JSON_INVALID';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const reason = text.trim() === '' ? 'it is empty' : (cause as Error).message;
    return {
      success: false,
      error: createDeltaError(`${source} is not valid JSON: ${reason}`, { code, cause, file: source, hint: options.hint }),
    };
  }
  if (!options.schema) return { success: true, data: value };
  const result = options.schema.safeParse(value);
  if (result.success) return { success: true, data: result.data };
  const first = result.error.issues[0];
  const error = createDeltaError(describeIssues(source, result.error.issues), {
    code,
    cause: result.error,
    file: source,
    field: first === undefined ? undefined : formatFieldPath(first.path),
    hint: options.hint,
  });
  return { success: false, error };
}

/** As safeParseJson, but throws the error: every JSON a Delta package reads back goes through one of the two. */
export function parseJson<T>(text: string, source: string, options: ParseJsonOptions & { schema: SafeParseSchema<T> }): T;
export function parseJson(text: string, source: string, options?: ParseJsonOptions): unknown;
export function parseJson(text: string, source: string, options: ParseJsonOptions & { schema?: SafeParseSchema<unknown> } = {}): unknown {
  const result = safeParseJson(text, source, options);
  if (!result.success) throw result.error;
  return result.data;
}
