import {
  type ConfigurationErrorCode,
  type DeltaErrorCode,
  type DeltaErrorKind,
  errorKindOf,
  exitCodeByKind,
  type ModelBehaviourErrorCode,
  type SystemErrorCode,
} from './error-codes.js';

const marker = Symbol.for('delta.error');

export interface DeltaErrorOptions<Code extends DeltaErrorCode = DeltaErrorCode> {
  /** A stable, machine-readable code such as `CONFIG_INVALID`; every one is in docs/errors.md. */
  code: Code;
  cause?: unknown;
  /** The file the error is about, when there is one. */
  file?: string | undefined;
  /** The dot-path of the field inside the file, when there is one. */
  field?: string | undefined;
  /** What the user can do about it. */
  hint?: string | undefined;
}

/**
 * The base of every error Delta Engine raises on purpose. Its `kind` follows from its code, so who is at
 * fault and the exit code cannot disagree with the catalogue. `DeltaError.isInstance` works across two
 * installed copies of this package, where `instanceof` does not.
 */
export class DeltaError extends Error {
  readonly [marker] = true;
  readonly kind: DeltaErrorKind;
  readonly code: DeltaErrorCode;
  readonly file: string | undefined;
  readonly field: string | undefined;
  readonly hint: string | undefined;

  constructor(message: string, options: DeltaErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.kind = errorKindOf(options.code);
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
  declare readonly kind: 'configuration';
  declare readonly code: ConfigurationErrorCode;

  // Only the codes of this kind: the class and the catalogue cannot disagree on who is at fault.
  constructor(message: string, options: DeltaErrorOptions<ConfigurationErrorCode>) {
    super(message, options);
  }
}

/** The model did something the engine cannot act on (an unknown tool, bad arguments). */
export class ModelBehaviourError extends DeltaError {
  declare readonly kind: 'model';
  declare readonly code: ModelBehaviourErrorCode;

  // Only the codes of this kind: the class and the catalogue cannot disagree on who is at fault.
  constructor(message: string, options: DeltaErrorOptions<ModelBehaviourErrorCode>) {
    super(message, options);
  }
}

/** The engine, the network or the operating system failed. */
export class SystemError extends DeltaError {
  declare readonly kind: 'system';
  declare readonly code: SystemErrorCode;

  // Only the codes of this kind: the class and the catalogue cannot disagree on who is at fault.
  constructor(message: string, options: DeltaErrorOptions<SystemErrorCode>) {
    super(message, options);
  }
}

/** The error of the kind its code says: a ConfigurationError for `CONFIG_INVALID`, and so on. */
export function createDeltaError(message: string, options: DeltaErrorOptions): DeltaError {
  switch (errorKindOf(options.code)) {
    case 'configuration':
      return new ConfigurationError(message, options as DeltaErrorOptions<ConfigurationErrorCode>);
    case 'model':
      return new ModelBehaviourError(message, options as DeltaErrorOptions<ModelBehaviourErrorCode>);
    default:
      return new SystemError(message, options as DeltaErrorOptions<SystemErrorCode>);
  }
}

/** The process exit code a thrown value leads to: 2 for the user's configuration, 1 for anything else. */
export function exitCodeOf(error: unknown): 1 | 2 {
  // A copy of this package from another version may know a kind this one does not.
  return DeltaError.isInstance(error) ? (exitCodeByKind[error.kind] ?? 1) : 1;
}

/** Formats an error for a person: the message, then the hint on its own line. */
export function formatError(error: unknown): string {
  if (DeltaError.isInstance(error)) {
    return error.hint ? `${error.message}\nHint: ${error.hint}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
