export {
  DeltaError,
  ConfigurationError,
  ModelBehaviourError,
  SystemError,
  exitCodeOf,
  formatError,
} from './delta-error.js';
export type { DeltaErrorOptions } from './delta-error.js';
export { ConfigurationErrors } from './configuration-errors.js';
export { errorKindOf } from './error-codes.js';
export type { ConfigurationErrorCode, DeltaErrorCode, DeltaErrorKind, ModelBehaviourErrorCode, SystemErrorCode } from './error-codes.js';
export { formatFieldPath, parseJson, safeParseJson } from './parse-json.js';
export { MAX_JSON_DEPTH, nestsDeeperThan, valueNestsDeeperThan } from './json-depth.js';
export type { ParseJsonOptions, SafeParseJsonResult, SafeParseSchema, SchemaIssue } from './parse-json.js';
export { asDiskFault, diskWrite, makeDirectory } from './disk-fault.js';
export { suggestName } from './suggest-name.js';
