/** Who is at fault: the user's configuration or input, the model's behaviour, or the system. */
export type DeltaErrorKind = 'configuration' | 'model' | 'system';

/**
 * Every code a DeltaError can carry, and who is at fault for it. docs/errors.md says what each means and
 * how to fix it; a test keeps that catalogue and this list equal. A new code is added here first:
 * `DeltaErrorOptions.code` takes nothing else.
 */
export const errorCodes = {
  // The user's files, options or workspace: the fix is theirs.
  AGENT_CONFIG_MISSING: 'configuration',
  AGENT_NOT_FOUND: 'configuration',
  API_KEY_MISSING: 'configuration',
  CONFIG_INVALID: 'configuration',
  CONFIG_MISSING: 'configuration',
  CONFIG_STRICT: 'configuration',
  BATCH_CHANGED: 'configuration',
  BATCH_LOCKED: 'configuration',
  BATCH_NOT_SHARED: 'configuration',
  DATASET_INVALID: 'configuration',
  CONTEXT_BUDGET_EXCEEDED: 'configuration',
  CONTEXT_MISSING: 'configuration',
  CONTEXT_SOURCE_MISSING: 'configuration',
  IMAGE_DIGEST_MISMATCH: 'configuration',
  IMAGE_INVALID: 'configuration',
  IMAGE_NOT_FOUND: 'configuration',
  IMPORT_CYCLE: 'configuration',
  IMPORT_INVALID: 'configuration',
  IMPORT_NOT_FOUND: 'configuration',
  IMPORT_OUTSIDE_BOUNDARY: 'configuration',
  INVALID_ARGUMENT: 'configuration',
  MESSAGE_REQUIRED: 'configuration',
  METADATA_INVALID: 'configuration',
  METADATA_MISSING: 'configuration',
  METADATA_VERSION: 'configuration',
  MODEL_UNAUTHORIZED: 'configuration',
  OPTIONAL_PACKAGE_MISSING: 'configuration',
  QUEUE_JOB_REFUSED: 'configuration',
  NO_RUN: 'configuration',
  RUN_ID_INVALID: 'configuration',
  RUN_ID_TAKEN: 'configuration',
  SANDBOX_UNAVAILABLE: 'configuration',
  RUN_LOCKED: 'configuration',
  TOOL_DEFINITION_INVALID: 'configuration',
  USAGE: 'configuration',
  WORKSPACE_INVALID: 'configuration',
  // What the model (or a program acting for it) asked for cannot be done.
  EXEC_TIMEOUT: 'model',
  INVALID_SESSION_ID: 'model',
  SESSION_ENDED: 'model',
  SESSION_NOT_FOUND: 'model',
  TOOL_ARGUMENTS_INVALID: 'model',
  MODEL_EMPTY_RESPONSE: 'model',
  MODEL_MALFORMED_RESPONSE: 'model',
  // The machine, the network, a model endpoint, or a file the engine wrote itself.
  COMMAND_NOT_FOUND: 'system',
  CONTEXT_GENERATOR_FAILED: 'system',
  DISK_FULL: 'system',
  DISK_NOT_PERMITTED: 'system',
  DISK_READ_ONLY: 'system',
  IMAGE_UNAVAILABLE: 'system',
  INTERNAL: 'system',
  INVOCATION_REQUEST_INVALID: 'system',
  INVOCATION_REQUEST_MISSING: 'system',
  JOURNAL_CORRUPT: 'system',
  JSON_INVALID: 'system',
  MCP_SERVER_FAILED: 'system',
  MODEL_BAD_RESPONSE: 'system',
  MODEL_CONNECTION_LOST: 'system',
  MODEL_ERROR: 'system',
  MODEL_RESPONSE_TOO_LARGE: 'system',
  MODEL_STREAM_ERROR: 'system',
  MODEL_STREAM_INCOMPLETE: 'system',
  MODEL_TIMEOUT: 'system',
  MODEL_UNREACHABLE: 'system',
  QUEUE_UNREACHABLE: 'system',
  RECORD_REFUSED: 'system',
  REPLAY_DIVERGED: 'system',
  REPLAY_RECORD_MISSING: 'system',
  SESSION_DEAD: 'system',
  SESSION_UNTRUSTED: 'system',
  START_FAILED: 'system',
  TRACE_EXPORT_FAILED: 'system',
  UNSUPPORTED_STATE_VERSION: 'system',
  WORKER_STOPPED: 'system',
} as const satisfies Record<string, DeltaErrorKind>;

/** A stable, machine-readable error code such as `CONFIG_INVALID` (see docs/errors.md). */
export type DeltaErrorCode = keyof typeof errorCodes;

type CodeOfKind<Kind extends DeltaErrorKind> = {
  [Code in DeltaErrorCode]: (typeof errorCodes)[Code] extends Kind ? Code : never;
}[DeltaErrorCode];

/** The codes a ConfigurationError may carry. */
export type ConfigurationErrorCode = CodeOfKind<'configuration'>;
/** The codes a ModelBehaviourError may carry. */
export type ModelBehaviourErrorCode = CodeOfKind<'model'>;
/** The codes a SystemError may carry. */
export type SystemErrorCode = CodeOfKind<'system'>;

/** The process exit code an error of each kind leads to in `delta` and `delta-sessions`. */
export const exitCodeByKind = { configuration: 2, model: 1, system: 1 } as const satisfies Record<DeltaErrorKind, number>;

export function isDeltaErrorCode(value: unknown): value is DeltaErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value);
}

/** Who is at fault for a code; a code this copy of the package does not know is the system's. */
export function errorKindOf(code: string): DeltaErrorKind {
  return isDeltaErrorCode(code) ? errorCodes[code] : 'system';
}
