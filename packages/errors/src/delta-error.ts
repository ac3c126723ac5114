const marker = Symbol.for('delta.error');

/** Who is at fault: the user's configuration or input, the model's behaviour, or the system. */
export type DeltaErrorKind = 'configuration' | 'model' | 'system';

export interface DeltaErrorOptions {
  /** A stable, machine-readable code such as `CONFIG_INVALID`. */
  code: string;
  cause?: unknown;
  /** The file the error is about, when there is one. */
  file?: string;
  /** The dot-path of the field inside the file, when there is one. */
  field?: string;
  /** What the user can do about it. */
  hint?: string;
}

/**
 * The base of every error Delta Engine raises on purpose. `DeltaError.isInstance`
 * works across two installed copies of this package, where `instanceof` does not.
 */
export class DeltaError extends Error {
  readonly [marker] = true;
  readonly kind: DeltaErrorKind = 'system';
  readonly code: string;
  readonly file: string | undefined;
  readonly field: string | undefined;
  readonly hint: string | undefined;

  constructor(message: string, options: DeltaErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.file = options.file;
    this.field = options.field;
    this.hint = options.hint;
  }

  static isInstance(value: unknown): value is DeltaError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** The user's configuration, command line or workspace is wrong; the fix is theirs (CLI exit code 2). */
export class ConfigurationError extends DeltaError {
  override readonly kind = 'configuration';
}

/** The model did something the engine cannot act on (an unknown tool, bad arguments). */
export class ModelBehaviourError extends DeltaError {
  override readonly kind = 'model';
}

/** The engine, the network or the operating system failed. */
export class SystemError extends DeltaError {
  override readonly kind = 'system';
}

/** Formats an error for a person: the message, then the hint on its own line. */
export function formatError(error: unknown): string {
  if (DeltaError.isInstance(error)) {
    return error.hint ? `${error.message}\nHint: ${error.hint}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
