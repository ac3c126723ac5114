import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { ConfigurationError, formatFieldPath, suggestName } from '@delta/errors';
import { describeValue } from './describe-value.js';
import { knownKeysAt } from './known-keys.js';
import { positionOf } from './source-position.js';
import { readConfigText } from './read-config-text.js';

export interface ConfigProblem {
  file: string;
  line?: number;
  column?: number;
  /** Dot path of the field, e.g. `tools[2].exec`. */
  field: string;
  message: string;
}

export interface ParsedConfig<T> {
  data: T;
  /** Unknown keys and other things worth saying that are not fatal. */
  warnings: ConfigProblem[];
  /**
   * Where a field (path of keys and indexes) starts in the file, for errors found after parsing; with
   * `key`, where that key of the mapping at `path` is written (for a message about the key itself).
   */
  locate(path: readonly PropertyKey[], key?: string): { line: number; column: number } | undefined;
}

/** Extra advice for a field, shown after the error (e.g. how to write the field correctly). */
export type HintFor = (field: string) => string | undefined;

/** A key the schema does not allow where it was written. */
export interface UnknownKey {
  /** The path of the mapping that holds the key. */
  path: readonly PropertyKey[];
  key: string;
  /** The key's field path, e.g. `llm.temprature`. */
  field: string;
  /** The keys the schema allows in that mapping. */
  known: readonly string[];
  /** The known key it is close to (a likely misspelling), if any. */
  suggestion: string | undefined;
}

/** What an unknown key is: an error (the file is refused) or a warning (the key is left out). */
export interface UnknownKeyVerdict {
  error: boolean;
  message: string;
  /** The fix, shown after the message of an error. */
  hint?: string;
}

export interface ParseYamlConfigOptions {
  /** What the file is for, used in "Fix:" lines (e.g. "agent.yaml"). Defaults to the file's base name. */
  label?: string;
  hintFor?: HintFor;
  /** Decides about one unknown key; undefined (or no function) gives {@link unknownKeyVerdict}. */
  describeUnknownKey?: (key: UnknownKey) => UnknownKeyVerdict | undefined;
  /**
   * Changes the parsed document before it is validated (the engine's `--set` overrides), so that what it
   * sets is checked exactly like what the file says. Nodes it adds have no position in the file.
   */
  edit?: (document: Document) => void;
}

/**
 * The default for an unknown key (spec resolution 11): a warning that names it, or, when it is close to a
 * known key, an error with the suggestion, because a misspelled setting that is ignored fails open.
 */
export function unknownKeyVerdict(key: UnknownKey): UnknownKeyVerdict {
  if (key.suggestion === undefined) {
    return { error: false, message: `unknown key "${key.key}" is ignored (check its spelling and indentation)` };
  }
  return {
    error: true,
    message: `unknown key "${key.key}": did you mean "${key.suggestion}"?`,
    hint: `Rename ${key.field} to ${replaceLast(key.field, key.key, key.suggestion)}.`,
  };
}

function replaceLast(field: string, key: string, replacement: string): string {
  return field.endsWith(key) ? `${field.slice(0, field.length - key.length)}${replacement}` : replacement;
}

export function formatProblem(problem: ConfigProblem): string {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}:${problem.column}`;
  return `${where} ${problem.field}: ${problem.message}`;
}

/** Several problems in one configuration file, reported together. */
export class ConfigFileError extends ConfigurationError {
  readonly problems: ConfigProblem[];

  constructor(file: string, problems: ConfigProblem[], hint?: string) {
    const lines = problems.map((problem) => `  - ${formatProblem(problem)}`).join('\n');
    super(`${file} is not valid:\n${lines}`, {
      code: 'CONFIG_INVALID',
      file,
      field: problems[0]?.field,
      ...(hint === undefined ? {} : { hint }),
    });
    this.problems = problems;
  }
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

function deleteKey(data: unknown, path: readonly PropertyKey[], key: string): void {
  const target = valueAt(data, path);
  if (target && typeof target === 'object') delete (target as Record<string, unknown>)[key];
}

/**
 * Parses YAML text against a schema whose objects are strict. Unknown keys become warnings that name
 * them (and are then left out), or errors when close to a known key (see `describeUnknownKey`); every
 * other problem becomes one error listing each with its line, column, field path, what was expected and
 * what was found.
 */
export function parseYamlConfig<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
  options: ParseYamlConfigOptions = {},
): ParsedConfig<z.output<S>> {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => {
      const position = error.linePos?.[0] ?? lineCounter.linePos(error.pos[0]);
      return {
        file,
        ...(position ? { line: position.line, column: position.col } : {}),
        field: '(yaml syntax)',
        message: error.message.split('\n')[0] ?? 'invalid YAML',
      };
    });
    throw new ConfigFileError(file, problems, 'Fix the YAML syntax at the line shown (indentation, quotes, colons).');
  }
  options.edit?.(document);
  const raw: unknown = document.toJS() ?? {};
  const warnings: ConfigProblem[] = [];
  const refused: ConfigProblem[] = [];
  const refusedHints: string[] = [];
  const where = (path: readonly PropertyKey[], key?: string) => {
    const position = positionOf(document, lineCounter, path, key);
    return position ? { line: position.line, column: position.column } : {};
  };
  const fail = (others: ConfigProblem[], otherHints: string[]): never => {
    const hints = [...new Set([...refusedHints, ...otherHints])];
    throw new ConfigFileError(file, [...refused, ...others], hints.length > 0 ? hints.join('\n') : undefined);
  };

  for (let attempt = 0; attempt < 20; attempt += 1) {
    const result = schema.safeParse(raw);
    if (result.success) {
      if (refused.length > 0) fail([], []);
      return { data: result.data, warnings, locate: (path, key) => positionOf(document, lineCounter, path, key) };
    }
    const unknown = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    const others = result.error.issues.filter((issue) => issue.code !== 'unrecognized_keys');
    for (const issue of unknown) {
      const known = knownKeysAt(schema, raw, issue.path);
      for (const key of (issue as { keys: string[] }).keys) {
        const unknownKey = {
          path: issue.path,
          key,
          field: formatFieldPath([...issue.path, key]),
          known,
          suggestion: suggestName(key, known),
        };
        const verdict = options.describeUnknownKey?.(unknownKey) ?? unknownKeyVerdict(unknownKey);
        const problem = { file, ...where(issue.path, key), field: unknownKey.field, message: verdict.message };
        if (verdict.error) {
          refused.push(problem);
          if (verdict.hint !== undefined) refusedHints.push(verdict.hint);
        } else {
          warnings.push(problem);
        }
        deleteKey(raw, issue.path, key);
      }
    }
    if (others.length > 0) {
      const problems = others.map((issue) => {
        const found = valueAt(raw, issue.path);
        const expected = issue.code === 'invalid_type' ? (issue as { expected: string }).expected : undefined;
        const message =
          found === undefined && expected !== undefined
            ? `is required but missing (expected ${expected})`
            : `${issue.message.replace(/^Invalid input: /, '')}; found ${describeValue(found)}`;
        return { file, ...where(issue.path), field: formatFieldPath(issue.path), message };
      });
      fail(
        problems,
        others.map((issue) => options.hintFor?.(formatFieldPath(issue.path))).filter((hint): hint is string => hint !== undefined),
      );
    }
  }
  throw new ConfigFileError(file, [{ file, field: '(top level)', message: 'could not be validated' }]);
}

/** Reads and parses a YAML configuration file; a missing file is a ConfigurationError. */
export function readYamlConfig<S extends z.ZodType>(
  file: string,
  schema: S,
  options: ParseYamlConfigOptions = {},
): ParsedConfig<z.output<S>> {
  if (!existsSync(file)) {
    throw new ConfigurationError(`${file} does not exist`, {
      code: 'CONFIG_MISSING',
      file,
      hint: `Create ${options.label ?? basename(file)}.`,
    });
  }
  return parseYamlConfig(readConfigText(file), file, schema, options);
}
