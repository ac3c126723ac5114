export { DeltaError, ConfigurationError, ModelBehaviourError, SystemError, formatError } from './delta-error.js';
export type { DeltaErrorKind, DeltaErrorOptions } from './delta-error.js';
export { asDiskFault, diskWrite, makeDirectory } from './disk-fault.js';
export { suggestName } from './suggest-name.js';
