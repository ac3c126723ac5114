import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigurationError } from '@delta/errors';
import { describeValue, formatPath } from './describe-value.js';
import { positionOf } from './source-position.js';

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
  /** Where a field (path of keys and indexes) starts in the file, for errors found after parsing. */
  locate(path: readonly PropertyKey[]): { line: number; column: number } | undefined;
}

/** Extra advice for a field, shown after the error (e.g. how to write the field correctly). */
export type HintFor = (field: string) => string | undefined;

export interface ParseYamlConfigOptions {
  /** What the file is for, used in "Fix:" lines (e.g. "agent.yaml"). Defaults to the file's base name. */
  label?: string;
  hintFor?: HintFor;
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
 * them (and are then left out); every other problem becomes one error listing each with its line,
 * column, field path, what was expected and what was found.
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
  const raw: unknown = document.toJS() ?? {};
  const warnings: ConfigProblem[] = [];
  const where = (path: readonly PropertyKey[], key?: string) => {
    const position = positionOf(document, lineCounter, path, key);
    return position ? { line: position.line, column: position.column } : {};
  };

  for (let attempt = 0; attempt < 20; attempt += 1) {
    const result = schema.safeParse(raw);
    if (result.success) return { data: result.data, warnings, locate: (path) => positionOf(document, lineCounter, path) };
    const unknown = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    const others = result.error.issues.filter((issue) => issue.code !== 'unrecognized_keys');
    for (const issue of unknown) {
      for (const key of (issue as { keys: string[] }).keys) {
        warnings.push({
          file,
          ...where(issue.path, key),
          field: formatPath([...issue.path, key]),
          message: `unknown key "${key}" is ignored (check its spelling and indentation)`,
        });
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
        return { file, ...where(issue.path), field: formatPath(issue.path), message };
      });
      const hints = others.map((issue) => options.hintFor?.(formatPath(issue.path))).filter((hint): hint is string => hint !== undefined);
      throw new ConfigFileError(file, problems, hints.length > 0 ? [...new Set(hints)].join('\n') : undefined);
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
  return parseYamlConfig(readFileSync(file, 'utf8'), file, schema, options);
}
