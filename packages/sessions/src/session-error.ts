import { DeltaError, type DeltaErrorCode } from '@delta/errors';

const marker = Symbol.for('delta.sessions.error');

/** The codes @delta/sessions raises; the CLI prints them as `error.code`. docs/errors.md explains each. */
export const sessionErrorCodes = [
  'INVALID_ARGUMENT',
  'INVALID_SESSION_ID',
  'SESSION_NOT_FOUND',
  'SESSION_ENDED',
  'SESSION_DEAD',
  'SESSION_UNTRUSTED',
  'COMMAND_NOT_FOUND',
  'START_FAILED',
  'EXEC_TIMEOUT',
  'UNSUPPORTED_STATE_VERSION',
  'JSON_INVALID',
  'INTERNAL',
] as const satisfies readonly DeltaErrorCode[];

/** Stable, machine-readable codes: a part of the DeltaErrorCode union of @delta/errors. */
export type SessionErrorCode = (typeof sessionErrorCodes)[number];

export function isSessionErrorCode(value: unknown): value is SessionErrorCode {
  return typeof value === 'string' && (sessionErrorCodes as readonly string[]).includes(value);
}

export interface SessionErrorOptions {
  code: SessionErrorCode;
  cause?: unknown;
  /** Output captured before the failure (a timeout, a dying interpreter), when there is some. */
  stdout?: string;
  stderr?: string;
}

/**
 * The one error @delta/sessions raises on purpose: a DeltaError whose kind (who is at fault) follows from
 * its code. `SessionError.isInstance` works across two installed copies of the package, where
 * `instanceof` does not.
 */
export class SessionError extends DeltaError {
  readonly [marker] = true;
  declare readonly code: SessionErrorCode;
  readonly stdout: string | undefined;
  readonly stderr: string | undefined;

  constructor(message: string, options: SessionErrorOptions) {
    super(message, { code: options.code, cause: options.cause });
    this.name = 'SessionError';
    this.stdout = options.stdout;
    this.stderr = options.stderr;
  }

  static override isInstance(value: unknown): value is SessionError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /** The JSON the CLI prints: `{ "error": { "code", "message" } }`, plus partial output when there is some. */
  toJSON(): { error: { code: SessionErrorCode; message: string; stdout?: string; stderr?: string } } {
    const error: { code: SessionErrorCode; message: string; stdout?: string; stderr?: string } = {
      code: this.code,
      message: this.message,
    };
    if (this.stdout !== undefined) error.stdout = this.stdout;
    if (this.stderr !== undefined) error.stderr = this.stderr;
    return { error };
  }
}
