import { safeParseJson, type SafeParseSchema, type SchemaIssue } from '@delta/errors';
import { isSessionErrorCode, SessionError, type SessionErrorCode } from './session-error.js';
import type { ExecResult, SessionMetadata } from './types.js';

// Sessions stand alone and start once per tool call, so they check their JSON by hand instead of with zod.

/** A field's check: the problem with the value, or undefined when it fits. */
type Check = (value: unknown) => string | undefined;

const string: Check = (value) => (typeof value === 'string' ? undefined : 'expected a string');
const integer: Check = (value) => (Number.isSafeInteger(value) ? undefined : 'expected a whole number');
const boolean: Check = (value) => (typeof value === 'boolean' ? undefined : 'expected true or false');
const oneOf =
  (...allowed: unknown[]): Check =>
  (value) =>
    allowed.includes(value) ? undefined : `expected one of ${allowed.map((option) => JSON.stringify(option)).join(', ')}`;
const nullable =
  (check: Check): Check =>
  (value) =>
    value === null ? undefined : check(value);
const strings: Check = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : 'expected a list of strings';
const sessionErrorCode: Check = (value) => (isSessionErrorCode(value) ? undefined : 'expected a session error code');

/** An object whose `required` fields must be there and whose `optional` ones may be; other keys are kept. */
function objectOf<T>(required: Record<string, Check>, optional: Record<string, Check> = {}): SafeParseSchema<T> {
  return {
    safeParse(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return { success: false, error: { issues: [{ path: [], message: 'expected an object' }] } };
      }
      const fields = value as Record<string, unknown>;
      const issues: SchemaIssue[] = [];
      for (const [key, check] of Object.entries(required)) {
        const problem = key in fields ? check(fields[key]) : 'is missing';
        if (problem) issues.push({ path: [key], message: problem });
      }
      for (const [key, check] of Object.entries(optional)) {
        const problem = fields[key] === undefined ? undefined : check(fields[key]);
        if (problem) issues.push({ path: [key], message: problem });
      }
      return issues.length === 0 ? { success: true, data: value as T } : { success: false, error: { issues } };
    },
  };
}

/** Just the version of a session's metadata.json, read before the rest so another version is named as such. */
export const VersionedShape = objectOf<{ schema_version: number }>({ schema_version: integer });

/** metadata.json of a session (schema_version 1). */
export const SessionMetadataShape = objectOf<SessionMetadata>(
  {
    schema_version: integer,
    session_id: string,
    command: string,
    argv: strings,
    kind: oneOf('shell', 'interpreter'),
    created_at: string,
    last_executed_at: nullable(string),
    // `ended` is what sessions before 1.x's one-word rule stored; read as `terminated`.
    status: oneOf('active', 'terminated', 'ended'),
    work_dir: string,
    execution_count: integer,
  },
  {
    pid: integer,
    interpreter_pid: integer,
    socket_path: string,
    marker: string,
    start_ticks: string,
    interpreter_start_ticks: string,
    ended_at: string,
    terminated_at: string,
  },
);

/** An exec lock file: who holds it. */
export const LockOwnerShape = objectOf<{ pid: number; token: string; start_ticks?: string }>(
  { pid: integer, token: string },
  { start_ticks: string },
);

const SessionErrorShape = objectOf<{ code: SessionErrorCode; message: string; stdout?: string; stderr?: string }>(
  { code: sessionErrorCode, message: string },
  { stdout: string, stderr: string },
);

/** The supervisor's first line on stdout: ready (with its pids), or why the interpreter did not start. */
export type SupervisorReport =
  | { ready: true; pid: number; interpreter_pid: number }
  | { error: { code: SessionErrorCode; message: string } };

export const SupervisorReportShape: SafeParseSchema<SupervisorReport> = {
  safeParse(value) {
    const error = (value as { error?: unknown } | null)?.error;
    if (error !== undefined) {
      const checked = SessionErrorShape.safeParse(error);
      if (!checked.success)
        return { success: false, error: { issues: checked.error.issues.map((issue) => ({ ...issue, path: ['error', ...issue.path] })) } };
      return { success: true, data: { error: checked.data } };
    }
    return objectOf<SupervisorReport>({ ready: oneOf(true), pid: integer, interpreter_pid: integer }).safeParse(value);
  },
};

/** The supervisor's one-line answer to an exec. */
export type SupervisorResponse =
  | { ok: true; result: ExecResult }
  | { ok: false; error: { code: SessionErrorCode; message: string; stdout?: string; stderr?: string } };

const ExecResultShape = objectOf<ExecResult>({ stdout: string, stderr: string, exit_code: integer, execution_time_ms: integer });

export const SupervisorResponseShape: SafeParseSchema<SupervisorResponse> = {
  safeParse(value) {
    const ok = objectOf<{ ok: boolean }>({ ok: boolean }).safeParse(value);
    if (!ok.success) return ok;
    const key = ok.data.ok ? 'result' : 'error';
    const checked = (ok.data.ok ? ExecResultShape : SessionErrorShape).safeParse((value as Record<string, unknown>)[key]);
    if (!checked.success)
      return { success: false, error: { issues: checked.error.issues.map((issue) => ({ ...issue, path: [key, ...issue.path] })) } };
    return { success: true, data: value as SupervisorResponse };
  },
};

/**
 * Parses JSON a session reads back (a file, or a session process's answer) and checks its shape. A bad
 * one is a SessionError (`JSON_INVALID`) that names the source and the field, as every sessions failure is.
 */
export function parseSessionJson<T>(text: string, source: string, shape: SafeParseSchema<T>): T {
  const result = safeParseJson(text, source, { schema: shape });
  if (!result.success) throw new SessionError(result.error.message, { code: 'JSON_INVALID', cause: result.error });
  return result.data;
}
