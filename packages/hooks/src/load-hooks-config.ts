import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { LineCounter, parseDocument } from 'yaml';
import {
  ConfigFileError,
  parseYamlConfig,
  positionOf,
  readConfigText,
  unknownKeyVerdict,
  type ConfigProblem,
  type ParsedConfig,
  type UnknownKey,
  type UnknownKeyVerdict,
} from '@delta/yaml-config';
import { HOOK_NAMES, LEGACY_HOOK_NAMES, isHookName, type HookName, type LegacyHookName } from './hook-names.js';
import { HooksFile, HooksFileEntries, type HookDefinition, type HooksConfig } from './hooks-config.js';
import { unknownVariableError, unknownVariableProblems } from './engine-variables.js';

export interface LoadedHooksConfig {
  hooks: HooksConfig;
  /** Where the hooks came from: hooks.yaml, the legacy file, or nothing when no hooks are configured. */
  file?: string;
  /** Unknown keys inside a hook, deprecated names and the legacy `lifecycle_hooks` block. Never fatal. */
  warnings: ConfigProblem[];
}

export interface LoadHooksConfigOptions {
  /** The agent directory; hooks are read from `<agentHome>/hooks.yaml`. */
  agentHome: string;
  /** The `lifecycle_hooks` value of agent.yaml / config.yaml (deprecated since v1.9), if it had one. */
  legacyLifecycleHooks?: unknown;
  /** The file that held `legacyLifecycleHooks`, for messages and line numbers (default `<agentHome>/agent.yaml`). */
  legacyFile?: string;
}

export interface ParseHooksConfigOptions {
  /** Where the value sits in its file, for field paths in messages (default `lifecycle_hooks`). */
  field?: string;
}

const LEGACY_FIELD = 'lifecycle_hooks';
const HINT = `Each hook is \`<name>: {command: ["program", "arg", ...], timeout_ms: 30000}\`; the hooks are ${HOOK_NAMES.join(', ')}.`;

/**
 * Loads the agent's hooks: `<agentHome>/hooks.yaml` when it exists, otherwise the deprecated
 * `lifecycle_hooks` block of agent.yaml with a deprecation warning. No hooks at all is not an error.
 */
export function loadHooksConfig(options: LoadHooksConfigOptions): LoadedHooksConfig {
  const file = join(options.agentHome, 'hooks.yaml');
  const legacyFile = options.legacyFile ?? join(options.agentHome, 'agent.yaml');
  const hasLegacy = options.legacyLifecycleHooks !== undefined && options.legacyLifecycleHooks !== null;
  if (existsSync(file)) {
    const loaded = validate(readConfigText(file), file, HooksFile, [], true);
    if (hasLegacy) {
      loaded.warnings.push({
        file: legacyFile,
        field: LEGACY_FIELD,
        message: `[DEPRECATION WARNING] ${LEGACY_FIELD} in ${legacyFile} is ignored because ${file} exists; delete it from ${legacyFile}`,
      });
    }
    return loaded;
  }
  if (!hasLegacy) return { hooks: {}, warnings: [] };
  const loaded = legacyFileHolds(legacyFile, options.legacyLifecycleHooks)
    ? validate(readConfigText(legacyFile), legacyFile, z.looseObject({ [LEGACY_FIELD]: HooksFileEntries }), [LEGACY_FIELD], true)
    : parseHooksConfig(options.legacyLifecycleHooks, legacyFile);
  loaded.warnings.unshift({
    file: legacyFile,
    field: LEGACY_FIELD,
    message: `[DEPRECATION WARNING] ${LEGACY_FIELD} in ${legacyFile} is deprecated since v1.9 and will be removed in v2.0; move its hooks to ${file}`,
  });
  return loaded;
}

/**
 * Validates a hooks block given as a value (the legacy `lifecycle_hooks` of agent.yaml, already parsed).
 * Messages name `file` and the field path, without line numbers.
 */
export function parseHooksConfig(value: unknown, file: string, options: ParseHooksConfigOptions = {}): LoadedHooksConfig {
  const field = options.field ?? LEGACY_FIELD;
  // JSON is YAML: parsing it with yaml-config gives the same messages; its positions would point into this text, so they are dropped.
  const text = JSON.stringify({ [field]: value ?? null });
  return validate(text, file, z.strictObject({ [field]: HooksFileEntries }), [field], false);
}

/** Whether `file` is YAML whose `lifecycle_hooks` is the block we were given, so its line numbers can be used. */
function legacyFileHolds(file: string, value: unknown): boolean {
  if (!existsSync(file)) return false;
  try {
    const parsed = parseYamlConfig(readFileSync(file, 'utf8'), file, z.looseObject({ [LEGACY_FIELD]: z.unknown() }));
    return JSON.stringify((parsed.data as Record<string, unknown>)[LEGACY_FIELD]) === JSON.stringify(value);
  } catch {
    return false;
  }
}

interface Block {
  path: string[];
  entries: Record<string, HookDefinition | undefined>;
}

function validate(text: string, file: string, schema: z.ZodType, root: string[], positions: boolean): LoadedHooksConfig {
  let parsed: ParsedConfig<unknown>;
  try {
    parsed = parseYamlConfig(text, file, schema, {
      label: 'hooks.yaml',
      hintFor: () => HINT,
      describeUnknownKey: (key) => describeUnknownHook(key, root),
    });
  } catch (error) {
    if (positions || !(error instanceof ConfigFileError)) throw error;
    throw new ConfigFileError(file, error.problems.map(withoutPosition), error.hint);
  }
  const position = (path: readonly PropertyKey[]) => (positions ? parsed.locate(path) : undefined);
  const keyPosition = positions ? keyLocator(text) : () => undefined;
  const warnings = parsed.warnings.map((warning) => (positions ? warning : withoutPosition(warning)));

  const top = valueAt(parsed.data, root) as Record<string, unknown>;
  const blocks: Block[] = [{ path: root, entries: top as Block['entries'] }];
  if (root.length === 0 && top[LEGACY_FIELD] !== undefined) {
    blocks.push({ path: [LEGACY_FIELD], entries: top[LEGACY_FIELD] as Block['entries'] });
  }

  const hooks: Partial<Record<HookName, HookDefinition>> = {};
  const seenAt: Partial<Record<HookName, string>> = {};
  const errors: ConfigProblem[] = [];
  for (const block of blocks) {
    for (const [key, definition] of Object.entries(block.entries)) {
      if (definition === undefined || key === LEGACY_FIELD) continue;
      const name: HookName | undefined = isHookName(key) ? key : LEGACY_HOOK_NAMES[key as keyof typeof LEGACY_HOOK_NAMES];
      if (name === undefined) continue;
      const field = fieldOf([...block.path, key]);
      const where = keyPosition(block.path, key);
      if (key !== name) {
        warnings.push({
          file,
          ...(where ?? {}),
          field,
          message: `[DEPRECATION WARNING] hook name "${key}" in ${file} is the v1.1 name of "${name}"; rename it to ${name}`,
        });
      }
      const earlier = seenAt[name];
      if (earlier !== undefined) {
        errors.push({
          file,
          ...(where ?? {}),
          field,
          message: `defines the same hook as ${earlier} ("${key}" and "${earlier.split('.').pop()}" are both ${name}); keep only ${name}`,
        });
        continue;
      }
      seenAt[name] = field;
      definition.command.forEach((part, index) => {
        errors.push(...unknownVariableProblems(part, file, `${field}.command[${index}]`, position([...block.path, key, 'command', index])));
      });
      hooks[name] = definition;
    }
  }
  if (errors.some((problem) => problem.message.startsWith('unknown variable'))) {
    throw unknownVariableError(file, errors);
  }
  if (errors.length > 0) throw new ConfigFileError(file, errors, 'Each hook may be defined once, under its current name.');
  return { hooks: orderHooks(hooks), file, warnings };
}

/** Where a key (rather than its value) starts, so that a message about a hook's name points at the name. */
function keyLocator(text: string): (path: readonly string[], key: string) => { line: number; column: number } | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  return (path, key) => positionOf(document, lineCounter, path, key);
}

function orderHooks(hooks: Partial<Record<HookName, HookDefinition>>): HooksConfig {
  const ordered: HooksConfig = {};
  for (const name of HOOK_NAMES) if (hooks[name]) ordered[name] = hooks[name];
  return ordered;
}

/**
 * An unknown hook name is an error, not a warning (overriding resolution 11): a misspelled gate such as
 * `pre_tool_exection` would never run, and the tool it guards would run unchecked.
 */
function describeUnknownHook(key: UnknownKey, root: string[]): UnknownKeyVerdict {
  const blocks = [fieldOf(root), fieldOf([...root, LEGACY_FIELD])];
  if (!blocks.includes(fieldOf(key.path.map(String)))) return unknownKeyVerdict(key);
  const suggestion: string | undefined =
    key.suggestion === undefined ? undefined : (LEGACY_HOOK_NAMES[key.suggestion as LegacyHookName] ?? key.suggestion);
  if (suggestion !== undefined && suggestion !== LEGACY_FIELD) {
    return {
      error: true,
      message: `unknown hook "${key.key}": did you mean "${suggestion}"?`,
      hint: `Rename ${key.key} to ${suggestion}. A misspelled hook never runs, so it is refused rather than ignored.`,
    };
  }
  return {
    error: true,
    message: `unknown hook "${key.key}" (the hooks are ${HOOK_NAMES.join(', ')})`,
    hint: 'Use one of the hook names; a misspelled hook never runs, so it is refused rather than ignored.',
  };
}

function withoutPosition(problem: ConfigProblem): ConfigProblem {
  const { line: _line, column: _column, ...rest } = problem;
  return rest;
}

function fieldOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let current = data;
  for (const part of path) current = (current as Record<string, unknown> | undefined)?.[part];
  return current ?? {};
}
