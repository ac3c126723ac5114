import { ConfigurationError, formatFieldPath } from '@delta/errors';
import { ConfigFileError, type ConfigProblem } from '@delta/yaml-config';
import { isCollection, isScalar, isSeq, parse, type Document } from 'yaml';

/**
 * Changes to agent.yaml for one run, without editing the file: the CLI's `--model` and `--set KEY=VALUE`
 * (repeatable). Each `set` entry is `dotted.path=value`; the value is read as YAML (`0` a number, `true`
 * a boolean, `"0"` a string, `[a, b]` a list).
 */
export interface ConfigOverrides {
  /** `llm.model`, taken as written (never read as YAML: a model named `1.5` stays a string). */
  model?: string;
  /** `KEY=VALUE` entries, applied in order (a later one wins). */
  set?: readonly string[];
}

/** One override, parsed: where it goes in agent.yaml, its value, and how the user wrote it. */
export interface ConfigOverride {
  path: (string | number)[];
  value: unknown;
  /** How it was given, for messages: `--set llm.temperature=0`, `--model gpt-4o`. */
  source: string;
}

const KEY_SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$|^\d+$/;
/** Keys that name an object's prototype machinery, never a field of agent.yaml: refused rather than ignored. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function badSet(entry: string, problem: string): ConfigurationError {
  return new ConfigurationError(`--set ${entry}: ${problem}.`, {
    code: 'CONFIG_INVALID',
    field: '--set',
    hint: 'Write --set KEY=VALUE with a dotted path into agent.yaml, e.g. --set llm.temperature=0 --set max_iterations=50.',
  });
}

/** Parses `--set` entries and `--model` into overrides; a malformed entry is a ConfigurationError (exit 2). */
export function parseConfigOverrides(overrides: ConfigOverrides): ConfigOverride[] {
  const parsed: ConfigOverride[] = [];
  if (overrides.model !== undefined) {
    if (overrides.model.trim() === '') throw badSet('llm.model', 'the model name is empty');
    parsed.push({ path: ['llm', 'model'], value: overrides.model, source: `--model ${overrides.model}` });
  }
  for (const entry of overrides.set ?? []) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw badSet(entry, 'there is no KEY= before the value');
    const key = entry.slice(0, equals);
    const segments = key.split('.');
    const wrong = segments.find((segment) => !KEY_SEGMENT.test(segment));
    if (wrong !== undefined)
      throw badSet(entry, `"${wrong}" in "${key}" is not a key of agent.yaml (letters, digits, _ and -, or a list index)`);
    const reserved = segments.find((segment) => PROTOTYPE_KEYS.has(segment));
    if (reserved !== undefined) throw badSet(entry, `"${reserved}" in "${key}" is not a key of agent.yaml, and never set`);
    let value: unknown;
    try {
      value = parse(entry.slice(equals + 1));
    } catch (error) {
      throw badSet(entry, `the value is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    }
    parsed.push({ path: segments.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)), value, source: `--set ${entry}` });
  }
  return parsed;
}

/**
 * Writes the overrides into agent.yaml's parsed document, before it is validated: what they set is then
 * checked like the file itself, with the same messages. A path through a value that is not a mapping (or
 * a list, for an index) is refused here.
 */
export function applyConfigOverrides(document: Document, overrides: readonly ConfigOverride[]): void {
  for (const override of overrides) {
    for (let length = 1; length <= override.path.length; length += 1) {
      const segment = override.path[length - 1];
      // An index must name an item of an existing list, or the one after its last: `tools.999999999`
      // would otherwise make a list of a billion holes.
      if (typeof segment === 'number') checkIndex(document, override, length - 1, segment);
      if (length === override.path.length) break;
      const node = document.getIn(override.path.slice(0, length), true);
      if (node !== undefined && !isCollection(node) && !(isScalar(node) && node.value === null)) {
        throw new ConfigurationError(
          `${override.source}: ${formatFieldPath(override.path.slice(0, length))} is a single value in agent.yaml, so it has no ${String(override.path[length])}.`,
          {
            code: 'CONFIG_INVALID',
            field: formatFieldPath(override.path),
            hint: 'Check the path: each part but the last must name a mapping of agent.yaml.',
          },
        );
      }
    }
    if (document.contents === null) document.contents = document.createNode({});
    document.setIn(override.path, document.createNode(override.value));
  }
}

function checkIndex(document: Document, override: ConfigOverride, parentLength: number, index: number): void {
  const parentPath = override.path.slice(0, parentLength);
  const parent = parentLength === 0 ? document.contents : document.getIn(parentPath, true);
  const where = parentLength === 0 ? 'agent.yaml' : formatFieldPath(parentPath);
  const size = isSeq(parent) ? parent.items.length : undefined;
  if (size !== undefined && index <= size) return;
  throw new ConfigurationError(
    size === undefined
      ? `${override.source}: ${where} is not a list in agent.yaml, so it has no item ${index}.`
      : `${override.source}: ${where} has ${size} item${size === 1 ? '' : 's'}, so there is no item ${index} to set.`,
    {
      code: 'CONFIG_INVALID',
      field: formatFieldPath(override.path),
      hint:
        size === undefined
          ? 'An index names an item of a list agent.yaml already has; write the list itself with --set KEY=[...] otherwise.'
          : `Use an index from 0 to ${size} (${size} adds an item at the end).`,
    },
  );
}

/** The override a problem of agent.yaml is about (the last one whose field is the problem's, or holds it), if any. */
function overrideOf(problem: ConfigProblem, overrides: readonly ConfigOverride[]): ConfigOverride | undefined {
  return overrides.findLast((override) => {
    const field = formatFieldPath(override.path);
    return problem.field === field || problem.field.startsWith(`${field}.`) || problem.field.startsWith(`${field}[`);
  });
}

/** A problem an override caused: agent.yaml's message, without a position in the file, saying which flag it came from. */
function fromOverride(problem: ConfigProblem, override: ConfigOverride): ConfigProblem {
  return { file: problem.file, field: problem.field, message: `${problem.message} (from ${override.source})` };
}

/**
 * agent.yaml's errors with those an override caused marked as coming from it. A warning an override
 * caused (an unknown key that agent.yaml would leave out) is an error: a flag that changes nothing is a mistake.
 */
export function overrideProblems(
  file: string,
  error: unknown,
  warnings: readonly ConfigProblem[],
  overrides: readonly ConfigOverride[],
): ConfigFileError | undefined {
  if (overrides.length === 0) return undefined;
  const problems = error instanceof ConfigFileError ? error.problems : [];
  const marked = problems.map((problem) => {
    const override = overrideOf(problem, overrides);
    return override ? fromOverride(problem, override) : problem;
  });
  const ignored = warnings.flatMap((warning) => {
    const override = overrideOf(warning, overrides);
    return override ? [fromOverride(warning, override)] : [];
  });
  if (error instanceof ConfigFileError) {
    if (!marked.some((problem, index) => problem !== problems[index])) return undefined;
    return new ConfigFileError(file, [...marked, ...ignored], error.hint);
  }
  if (ignored.length === 0) return undefined;
  return new ConfigFileError(
    file,
    ignored,
    'An override must name a field agent.yaml knows and sends: check its spelling (docs/configuration.md lists the fields).',
  );
}
