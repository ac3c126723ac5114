export { parseYamlConfig, readYamlConfig, formatProblem, ConfigFileError, unknownKeyVerdict } from './read-yaml-config.js';
export type { ConfigProblem, ParsedConfig, ParseYamlConfigOptions, HintFor, UnknownKey, UnknownKeyVerdict } from './read-yaml-config.js';
export { describeFileKind, readConfigText } from './read-config-text.js';
export { positionOf } from './source-position.js';
export type { SourcePosition } from './source-position.js';
export { describeValue } from './describe-value.js';
