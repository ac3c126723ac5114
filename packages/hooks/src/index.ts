export { HOOK_NAMES, LEGACY_HOOK_NAMES, isHookName } from './hook-names.js';
export type { HookName, LegacyHookName } from './hook-names.js';
export { DEFAULT_HOOK_TIMEOUT_MS, HookDefinition, HooksConfig, HooksFile, HooksFileEntries } from './hooks-config.js';
export { loadHooksConfig, parseHooksConfig } from './load-hooks-config.js';
export type { LoadedHooksConfig, LoadHooksConfigOptions, ParseHooksConfigOptions } from './load-hooks-config.js';
export { substituteEngineVariables } from './engine-variables.js';
export type { EngineVariables } from './engine-variables.js';
