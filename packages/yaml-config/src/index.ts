export { parseYamlConfig, readYamlConfig, formatProblem, ConfigFileError, unknownKeyVerdict } from './read-yaml-config.js';
export type { ConfigProblem, ParsedConfig, ParseYamlConfigOptions, HintFor, UnknownKey, UnknownKeyVerdict } from './read-yaml-config.js';
export { knownKeysAt } from './known-keys.js';
export { positionOf } from './source-position.js';
export type { SourcePosition } from './source-position.js';
export { describeValue, formatPath } from './describe-value.js';
