/** The JSON value in a model's answer: the whole answer, a fenced ```json block, or from its first { or [ on. */
export function parseAnswerJson(answer: string): { ok: true; value: unknown } | { ok: false } {
  const fenced = answer.match(/```(?:json)?\s*\n([\s\S]*?)```/);
  const candidates = [
    answer,
    fenced?.[1],
    answer.slice(Math.max(0, Math.min(...['{', '['].map((open) => answer.indexOf(open)).filter((at) => at >= 0)))),
  ];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate.trim() === '') continue;
    // Not safeParseJson: a candidate that is not JSON is no error, the next way of finding it is tried.
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // The next way of finding it.
    }
  }
  return { ok: false };
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

/**
 * Where `actual` fails to contain `expected`, in words, or undefined when it does: every key of an expected object
 * is in the actual one with a value that contains the expected value; a list holds as many items, each containing
 * the expected item at its place; anything else is equal.
 */
export function jsonSubsetMismatch(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `at ${path}: expected a list, found ${show(actual)}`;
    if (actual.length !== expected.length) return `at ${path}: expected ${expected.length} items, found ${actual.length}`;
    for (const [index, item] of expected.entries()) {
      const mismatch = jsonSubsetMismatch(item, actual[index], `${path}[${index}]`);
      if (mismatch !== undefined) return mismatch;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return `at ${path}: expected an object, found ${show(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) return `at ${path}.${key}: missing`;
      const mismatch = jsonSubsetMismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (mismatch !== undefined) return mismatch;
    }
    return undefined;
  }
  return Object.is(expected, actual) || expected === actual ? undefined : `at ${path}: expected ${show(expected)}, found ${show(actual)}`;
}
