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

/** The first system error code (ECONNREFUSED, ENOTFOUND, ...) in an error's cause chain. */
export function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A failed attempt in a few words (`HTTP 500`, `ECONNREFUSED`, `no answer in time`), for a progress line or a journal. */
export function failureSummary(error: Error, status: number | undefined): string {
  if (DeltaError.isInstance(error)) {
    if (error.code === 'MODEL_TIMEOUT') return 'no answer in time';
    if (error.code === 'MODEL_UNREACHABLE' || error.code === 'MODEL_CONNECTION_LOST') return causeCode(error.cause) ?? 'no connection';
    // An answer that came with a success status but holds nothing to act on: its code says what was wrong.
    if (error.code !== 'MODEL_ERROR' || status === undefined) return error.code;
  }
  return status !== undefined ? `HTTP ${status}` : error.message;
}
