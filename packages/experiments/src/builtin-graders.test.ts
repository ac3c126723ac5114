import { describe, expect, it } from 'vitest';
import { REGEX_TIME_LIMIT_MS } from './bounded-regex.js';
import { builtinVerdict, parseBuiltinGrader } from './builtin-graders.js';

const grade = (grader: string, expected: unknown, answer: string | null) => builtinVerdict(parseBuiltinGrader(grader)!, expected, answer);

describe('built-in graders', () => {
  it('are named builtin:NAME, anything else being a shell command; an unknown name is a usage error', async () => {
    expect(parseBuiltinGrader('python3 grade.py')).toBeUndefined();
    expect(parseBuiltinGrader('builtin:exact')).toEqual({ name: 'exact' });
    expect(parseBuiltinGrader('builtin:numeric:0.01')).toEqual({ name: 'numeric', tolerance: 0.01 });
    expect(parseBuiltinGrader('builtin:numeric')).toEqual({ name: 'numeric', tolerance: 0 });
    expect(() => parseBuiltinGrader('builtin:exakt')).toThrow(/no built-in grader "exakt"/);
    expect(() => parseBuiltinGrader('builtin:numeric:abc')).toThrow(/tolerance "abc" is not a number/);
    expect(() => parseBuiltinGrader('builtin:exact:x')).toThrow(/takes no argument/);
  });

  it('exact: the trimmed answer is the expected text, or one of a list', async () => {
    expect(await grade('builtin:exact', '42', ' 42\n')).toMatchObject({ score: 1, passed: true });
    expect(await grade('builtin:exact', 42, '42')).toMatchObject({ score: 1 });
    expect(await grade('builtin:exact', '42', 'The answer is 42')).toMatchObject({ score: 0, passed: false });
    expect(await grade('builtin:exact', ['Paris', 'paris'], 'paris')).toMatchObject({ score: 1 });
    expect(await grade('builtin:exact', '42', null)).toMatchObject({ score: 0 });
  });

  it('includes: the answer contains the expected text', async () => {
    expect(await grade('builtin:includes', 'Paris', 'It is Paris.')).toMatchObject({ score: 1 });
    expect(await grade('builtin:includes', 'Paris', 'It is Lyon.')).toMatchObject({ score: 0 });
  });

  it('regex: the expected value is a pattern the answer matches', async () => {
    expect(await grade('builtin:regex', '^\\d{3}-\\d{4}$', '555-1234')).toMatchObject({ score: 1 });
    expect(await grade('builtin:regex', '^\\d{3}-\\d{4}$', 'call 555-1234')).toMatchObject({ score: 0 });
    expect(await grade('builtin:regex', '(', 'x')).toMatchObject({ score: null, error: expect.stringContaining('not a valid pattern') });
  });

  it('regex: a pattern that backtracks for ever is stopped at the bound, a grader error; the next grade matches again', async () => {
    const stuck = await grade('builtin:regex', '^(\\w+\\s?)*$', `${'a'.repeat(40)}!`);
    expect(stuck).toMatchObject({
      score: null,
      passed: null,
      error: expect.stringContaining(`builtin:regex: the pattern ran longer than ${REGEX_TIME_LIMIT_MS} ms on this answer`),
    });
    expect(await grade('builtin:regex', ['^x$', '^\\d+$'], '42')).toMatchObject({ score: 1 });
  });

  it("numeric: the answer's last number is within the tolerance of the expected number", async () => {
    expect(await grade('builtin:numeric', 1234.5, 'So the total is 1,234.5.')).toMatchObject({
      score: 1,
      details: { answer_number: 1234.5 },
    });
    expect(await grade('builtin:numeric:0.01', '3.14159', 'pi is about 3.14')).toMatchObject({ score: 1 });
    expect(await grade('builtin:numeric:0.001', '3.14159', 'pi is about 3.14')).toMatchObject({ score: 0 });
    expect(await grade('builtin:numeric', 2, 'no idea')).toMatchObject({ score: 0, details: { reason: 'the answer holds no number' } });
    expect(await grade('builtin:numeric', 'two', '2')).toMatchObject({ score: null, error: expect.stringContaining('needs a number') });
  });

  it('json-subset: the answer is JSON holding every expected key and value', async () => {
    const expected = { city: 'Paris', tags: ['a', { b: 1 }] };
    expect(await grade('builtin:json-subset', expected, '{"city": "Paris", "tags": ["a", {"b": 1, "c": 2}], "extra": true}')).toMatchObject(
      {
        score: 1,
      },
    );
    expect(await grade('builtin:json-subset', expected, 'Here:\n```json\n{"city": "Paris", "tags": ["a", {"b": 1}]}\n```')).toMatchObject({
      score: 1,
    });
    expect(await grade('builtin:json-subset', expected, '{"city": "Lyon", "tags": ["a", {"b": 1}]}')).toMatchObject({
      score: 0,
      details: { reason: 'at $.city: expected "Paris", found "Lyon"' },
    });
    expect(await grade('builtin:json-subset', expected, '{"city": "Paris", "tags": ["a"]}')).toMatchObject({
      details: { reason: 'at $.tags: expected 2 items, found 1' },
    });
    expect(await grade('builtin:json-subset', expected, 'not json')).toMatchObject({
      score: 0,
      details: { reason: 'the answer holds no JSON value' },
    });
  });

  it('without an expected value, no score and an error that says so', async () => {
    expect(await grade('builtin:exact', undefined, 'x')).toMatchObject({
      score: null,
      passed: null,
      error: expect.stringContaining('has none'),
    });
  });
});
