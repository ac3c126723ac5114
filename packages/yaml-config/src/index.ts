export { parseYamlConfig, readYamlConfig, formatProblem, ConfigFileError } from './read-yaml-config.js';
export type { ConfigProblem, ParsedConfig, ParseYamlConfigOptions, HintFor } from './read-yaml-config.js';
export { positionOf } from './source-position.js';
export type { SourcePosition } from './source-position.js';
export { describeValue, formatPath } from './describe-value.js';
