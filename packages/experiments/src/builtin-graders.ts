import { ConfigurationError } from '@delta/errors';
import { matchAnyBounded, REGEX_TIME_LIMIT_MS } from './bounded-regex.js';
import { jsonSubsetMismatch, parseAnswerJson } from './json-subset.js';

/** A grader named `builtin:NAME[:ARGUMENT]` runs inside the engine; any other grader is a shell command. */
export const BUILTIN_PREFIX = 'builtin:';

export type BuiltinGrader = { name: 'exact' | 'includes' | 'regex' | 'json-subset' } | { name: 'numeric'; tolerance: number };

const NAMES = ['exact', 'includes', 'regex', 'numeric', 'json-subset'];
const HINT =
  'Built-in graders: builtin:exact, builtin:includes, builtin:regex, builtin:numeric (or builtin:numeric:0.01, an absolute tolerance), builtin:json-subset; each compares the final answer with the task\'s "expected".';

function usage(message: string): ConfigurationError {
  return new ConfigurationError(message, { code: 'USAGE', field: '--grader', hint: HINT });
}

/** The built-in grader `grader` names, undefined for a shell command; a usage error for an unknown name. */
export function parseBuiltinGrader(grader: string): BuiltinGrader | undefined {
  if (!grader.startsWith(BUILTIN_PREFIX)) return undefined;
  const [name = '', ...rest] = grader.slice(BUILTIN_PREFIX.length).split(':');
  const argument = rest.join(':');
  if (!NAMES.includes(name)) throw usage(`--grader ${grader}: there is no built-in grader "${name}".`);
  if (name === 'numeric') {
    const tolerance = argument === '' ? 0 : Number(argument);
    if (!Number.isFinite(tolerance) || tolerance < 0 || argument.trim() !== argument) {
      throw usage(`--grader ${grader}: the tolerance "${argument}" is not a number of at least 0.`);
    }
    return { name, tolerance };
  }
  if (argument !== '') throw usage(`--grader ${grader}: builtin:${name} takes no argument.`);
  return { name: name as 'exact' | 'includes' | 'regex' | 'json-subset' };
}

/** What a built-in grader says, in the fields of a grade. */
export interface BuiltinVerdict {
  score: number | null;
  passed: boolean | null;
  details?: Record<string, unknown>;
  error?: string;
}

/** The accepted answers: `expected` itself, or each item when it is a list (any one of them passes). */
function accepted(expected: unknown): string[] | undefined {
  const items = Array.isArray(expected) ? expected : [expected];
  if (items.length === 0 || !items.every((item) => typeof item === 'string' || typeof item === 'number')) return undefined;
  return items.map((item) => String(item).trim());
}

/** The last number in the answer ("The answer is 1,234.5." gives 1234.5), or undefined. */
function lastNumber(answer: string): number | undefined {
  const found = answer.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g);
  return found === null ? undefined : Number(found.at(-1));
}

function verdict(passed: boolean, details: Record<string, unknown>): BuiltinVerdict {
  return { score: passed ? 1 : 0, passed, details };
}

/**
 * Grades a final answer against the task's `expected` with a built-in grader: pure, but for `regex`, which
 * matches in a worker thread under REGEX_TIME_LIMIT_MS (see bounded-regex.ts).
 */
export async function builtinVerdict(grader: BuiltinGrader, expected: unknown, finalAnswer: string | null): Promise<BuiltinVerdict> {
  if (expected === undefined || expected === null) {
    return { score: null, passed: null, error: `builtin:${grader.name} needs the task's "expected", and the task has none` };
  }
  const answer = (finalAnswer ?? '').trim();
  if (grader.name === 'json-subset') {
    const parsed = parseAnswerJson(answer);
    if (!parsed.ok) return verdict(false, { reason: 'the answer holds no JSON value' });
    const mismatch = jsonSubsetMismatch(expected, parsed.value);
    return verdict(mismatch === undefined, mismatch === undefined ? {} : { reason: mismatch });
  }
  if (grader.name === 'numeric') {
    const target = Number(Array.isArray(expected) ? Number.NaN : expected);
    if ((typeof expected !== 'number' && typeof expected !== 'string') || !Number.isFinite(target)) {
      return { score: null, passed: null, error: `builtin:numeric needs a number as "expected", got ${JSON.stringify(expected)}` };
    }
    const found = lastNumber(answer);
    if (found === undefined) return verdict(false, { reason: 'the answer holds no number' });
    return verdict(Math.abs(found - target) <= grader.tolerance, { answer_number: found, tolerance: grader.tolerance });
  }
  const wanted = accepted(expected);
  if (wanted === undefined) {
    return {
      score: null,
      passed: null,
      error: `builtin:${grader.name} needs "expected" to be a string or a number, or a list of them; got ${JSON.stringify(expected).slice(0, 200)}`,
    };
  }
  if (grader.name === 'exact') return verdict(wanted.includes(answer), {});
  if (grader.name === 'includes')
    return verdict(
      wanted.some((text) => answer.includes(text)),
      {},
    );
  // Off this event loop and bounded in time: an answer can make a backtracking pattern run for ever.
  const outcome = await matchAnyBounded(wanted, answer, REGEX_TIME_LIMIT_MS);
  if (outcome.kind === 'invalid')
    return { score: null, passed: null, error: `builtin:regex: "expected" is not a valid pattern: ${outcome.message}` };
  if (outcome.kind === 'timeout') {
    return {
      score: null,
      passed: null,
      error:
        `builtin:regex: the pattern ran longer than ${REGEX_TIME_LIMIT_MS} ms on this answer and was stopped; ` +
        'a pattern with nested repetition (such as (\\w+\\s?)*) can take exponential time. Rewrite "expected" without nested quantifiers, or grade with a command grader.',
    };
  }
  return verdict(outcome.kind === 'matched', {});
}
