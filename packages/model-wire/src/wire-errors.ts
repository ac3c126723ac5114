import {
  ConfigurationError,
  DeltaError,
  ModelBehaviourError,
  type DeltaErrorOptions,
  type ModelBehaviourErrorCode,
  SystemError,
  type SystemErrorCode,
} from '@delta/errors';

/** What the retry loop needs to know about a failed attempt. */
export interface AttemptFailure {
  /** Worth sending the same request again: the server or the network may answer differently next time. */
  transient: boolean;
  /** The HTTP status, when the server answered. */
  status?: number | undefined;
  /** The wait the server asked for (Retry-After, retry-after-ms), in milliseconds. */
  retryAfterMs?: number | undefined;
}

export interface WireErrorOptions extends DeltaErrorOptions<SystemErrorCode>, AttemptFailure {
  /** The body as it came, when it could not be read as a chat completion: kept by the caller for audit. */
  rawBody?: string | undefined;
}

/** The network or the server failed (no connection, no answer in time, an HTTP error, a body that is no chat completion). */
export class ModelWireError extends SystemError implements AttemptFailure {
  readonly transient: boolean;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  /** See WireErrorOptions.rawBody (not enumerable: an error logged or serialised does not carry a whole body). */
  declare readonly rawBody: string | undefined;

  constructor(message: string, options: WireErrorOptions) {
    super(message, options);
    this.transient = options.transient;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    Object.defineProperty(this, 'rawBody', { value: options.rawBody, enumerable: false, writable: true, configurable: true });
  }
}

/**
 * The server answered a chat completion the engine cannot act on: no choice, no message, `tool_calls` that
 * is not a list. A model's glitch more often than not, so it is retried like a transient fault.
 */
export class ModelResponseError extends ModelBehaviourError implements AttemptFailure {
  readonly transient = true;
  readonly status: number | undefined;
  readonly retryAfterMs = undefined;

  constructor(message: string, options: DeltaErrorOptions<ModelBehaviourErrorCode> & { status?: number | undefined }) {
    super(message, options);
    this.status = options.status;
  }
}

/** The endpoint refused the credentials (HTTP 401): the fix is the user's, so it is never retried. */
export class ModelAuthenticationError extends ConfigurationError implements AttemptFailure {
  readonly transient = false;
  readonly status = 401;
  readonly retryAfterMs = undefined;
}

/** How a thrown value counts for retries: only the wire's own errors say they are transient. */
export function attemptFailure(error: unknown): AttemptFailure {
  if (DeltaError.isInstance(error) && typeof (error as Partial<AttemptFailure>).transient === 'boolean') {
    const failure = error as DeltaError & AttemptFailure;
    return { transient: failure.transient, status: failure.status, retryAfterMs: failure.retryAfterMs };
  }
  return { transient: false };
}
