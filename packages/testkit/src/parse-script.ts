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
    return `unknown key ${issue.keys.map((key) => `'${key}'`).join(', ')} (allowed: content, reasoning, tool_calls, error, raw, large, delay_ms, drop_after_bytes, stall_ms, usage)`;
  }
  return issue.message;
}

/**
 * Validates a parsed script (a list of steps, or `{ steps: [...] }`); `source` names it in errors.
 * Pure: no file access. Throws ScriptFileError for the first step that is wrong.
 */
export function parseScript(value: unknown, source: string): ScriptStep[] {
  let steps: unknown;
  if (Array.isArray(value)) {
    steps = value;
  } else if (typeof value === 'object' && value !== null && 'steps' in value && Array.isArray(value.steps)) {
    steps = value.steps;
  } else {
    throw new ScriptFileError(`${source}: expected a list of steps or an object with a 'steps' list, found ${describeValue(value)}`, {
      file: source,
    });
  }
  const list = steps as unknown[];
  if (list.length === 0) {
    throw new ScriptFileError(`${source}: the script has no steps; add at least one (e.g. '- content: Hello')`, {
      file: source,
    });
  }
  return list.map((step, index) => {
    const result = ScriptStep.safeParse(step);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    const field = formatPath(issue.path);
    const where = field === '' ? `step ${index}` : `step ${index}, field '${field}'`;
    throw new ScriptFileError(`${source}: ${where}: ${describeIssue(issue)}`, { file: source, stepIndex: index, field });
  });
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty document';
  if (typeof value === 'object') return 'an object without a steps list';
  return `a ${typeof value}`;
}
