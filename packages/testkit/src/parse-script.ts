import type { z } from 'zod';
import { ScriptStep } from './script-step.js';

/** A script that cannot be used, naming the file, the step and the field. */
export class ScriptFileError extends Error {
  readonly file: string;
  /** The step's index (from 0), when the problem is inside one step. */
  readonly stepIndex: number | undefined;
  /** The field inside the step, e.g. `tool_calls[0].name`. */
  readonly field: string | undefined;

  constructor(message: string, details: { file: string; stepIndex?: number; field?: string; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ScriptFileError';
    this.file = details.file;
    this.stepIndex = details.stepIndex;
    this.field = details.field;
  }
}

/** Formats a zod issue path as `tool_calls[0].name`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const key of path) {
    text += typeof key === 'number' ? `[${key}]` : text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return `unknown key ${issue.keys.map((key) => `'${key}'`).join(', ')} (allowed: when, content, reasoning, tool_calls, error, raw, large, delay_ms, drop_after_bytes, stall_ms, usage)`;
  }
  return issue.message;
}

/**
 * Validates a parsed script (a list of steps, `{ steps: [...] }`, or `{ models: { NAME: [...] } }`: one
 * script per model, each step answering only that model's requests); `source` names it in errors.
 * Pure: no file access. Throws ScriptFileError for the first step that is wrong.
 */
export function parseScript(value: unknown, source: string): ScriptStep[] {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'models' in value) return parseModelScripts(value, source);
  return parseSteps(stepsOf(value, source), source, '');
}

function stepsOf(value: unknown, source: string, where = ''): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null && 'steps' in value && Array.isArray(value.steps)) return value.steps;
  throw new ScriptFileError(`${source}: ${where}expected a list of steps or an object with a 'steps' list, found ${describeValue(value)}`, {
    file: source,
  });
}

function parseSteps(list: unknown[], source: string, where: string): ScriptStep[] {
  if (list.length === 0) {
    throw new ScriptFileError(`${source}: ${where}the script has no steps; add at least one (e.g. '- content: Hello')`, {
      file: source,
    });
  }
  return list.map((step, index) => {
    const result = ScriptStep.safeParse(step);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    const field = formatPath(issue.path);
    const at = field === '' ? `step ${index}` : `step ${index}, field '${field}'`;
    throw new ScriptFileError(`${source}: ${where}${at}: ${describeIssue(issue)}`, { file: source, stepIndex: index, field });
  });
}

/** `models: {a: [...], b: [...]}`: each model's steps, in its own order, answering only its requests. */
function parseModelScripts(value: object, source: string): ScriptStep[] {
  const { models, ...rest } = value as { models: unknown };
  const extra = Object.keys(rest);
  if (extra.length > 0) {
    throw new ScriptFileError(
      `${source}: unknown key ${extra.map((key) => `'${key}'`).join(', ')} beside 'models' (one script per model, by name)`,
      {
        file: source,
        field: extra[0],
      },
    );
  }
  if (typeof models !== 'object' || models === null || Array.isArray(models) || Object.keys(models).length === 0) {
    throw new ScriptFileError(`${source}: 'models' must map each model name to its steps, e.g. models: {gpt-4o: [{content: Hi}]}`, {
      file: source,
      field: 'models',
    });
  }
  return Object.entries(models).flatMap(([model, script]) => {
    const where = `models.${model}: `;
    return parseSteps(stepsOf(script, source, where), source, where).map((step, index) => {
      if (step.when?.model !== undefined && step.when.model !== model) {
        throw new ScriptFileError(
          `${source}: ${where}step ${index}, field 'when.model': "${step.when.model}" in the script of model "${model}"`,
          {
            file: source,
            stepIndex: index,
            field: 'when.model',
          },
        );
      }
      return { ...step, when: { ...step.when, model } };
    });
  });
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty document';
  if (typeof value === 'object') return 'an object without a steps list';
  return `a ${typeof value}`;
}
