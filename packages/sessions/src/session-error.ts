const marker = Symbol.for('delta.sessions.error');

/** Stable, machine-readable codes; the CLI prints them as `error.code`. */
export type SessionErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_SESSION_ID'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_ENDED'
  | 'SESSION_DEAD'
  | 'COMMAND_NOT_FOUND'
  | 'START_FAILED'
  | 'EXEC_TIMEOUT'
  | 'UNSUPPORTED_STATE_VERSION'
  | 'INTERNAL';

export interface SessionErrorOptions {
  code: SessionErrorCode;
  cause?: unknown;
  /** Output captured before the failure (a timeout, a dying interpreter), when there is some. */
  stdout?: string;
  stderr?: string;
}

/**
 * The one error @delta/sessions raises on purpose. `SessionError.isInstance` works across two
 * installed copies of the package, where `instanceof` does not.
 */
export class SessionError extends Error {
  readonly [marker] = true;
  readonly code: SessionErrorCode;
  readonly stdout: string | undefined;
  readonly stderr: string | undefined;

  constructor(message: string, options: SessionErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SessionError';
    this.code = options.code;
    this.stdout = options.stdout;
    this.stderr = options.stderr;
  }

  static isInstance(value: unknown): value is SessionError {
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
