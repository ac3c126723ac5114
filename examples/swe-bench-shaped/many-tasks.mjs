#!/usr/bin/env node
// Writes a SWE-bench-shaped dataset of 16 tasks over the example's image, one per bug of repo/textkit/core.py,
// into DIR: tasks.jsonl (each task names DIR/image:textkit and its verifier), tests/<task>/ (test.sh and the
// hidden tests), and fake-llm.yaml, a scripted model that fixes each bug with sed. Then run, from the root:
//   sh examples/swe-bench-shaped/build-image.sh DIR/image
//   node examples/swe-bench-shaped/many-tasks.mjs DIR
//   npx delta-fake-llm --script DIR/fake-llm.yaml -- \
//     npx delta batch DIR/tasks.jsonl --agent examples/swe-bench-shaped --out DIR/results --concurrency 4
//   npx delta report DIR/results
// Each step says which request it answers (when: a text of its last message that no other request has).
// On purpose, as on a real benchmark: the model's fixes of mean and percent pass the repository's test but
// not the hidden ones (failed verifications), and fib's verifier is broken (it looks for the repository in
// /testbed/src, which this one does not have): a verifier error, counted apart and left out of the pass rate.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Each bug: the function, its test class, the issue's text, the model's sed, and the verifier's hidden tests. */
const BUGS = [
  [
    'add',
    'TestAdd',
    'add(2, 3) returns -1, it should return 5',
    's|return a - b|return a + b|',
    'return a + b',
    ['add(-1, 1) == 0', 'add(0.5, 0.25) == 0.75'],
  ],
  [
    'is_even',
    'TestIsEven',
    'is_even(4) returns False, it should return True',
    's|n % 2 == 1|n % 2 == 0|',
    'n % 2 == 0',
    ['is_even(3) is False', 'is_even(0) is True'],
  ],
  [
    'clamp',
    'TestClamp',
    'clamp(5, 0, 3) returns 0, it should return 3',
    's|min(x, lo))|min(x, hi))|',
    'min(x, hi))',
    ['clamp(2, 0, 3) == 2', 'clamp(-1, 0, 3) == 0'],
  ],
  // Wrong: floor division passes mean([1, 2, 3]) == 2 but not mean([1, 2]) == 1.5.
  [
    'mean',
    'TestMean',
    'mean([1, 2, 3]) returns 1.5, it should return 2',
    's|sum(xs) / (len(xs) + 1)|sum(xs) // len(xs)|',
    'sum(xs) // len(xs)',
    ['mean([1, 2]) == 1.5', 'mean([4]) == 4'],
  ],
  [
    'slugify',
    'TestSlugify',
    'slugify("Hello World") returns "HELLO-WORLD", it should return "hello-world"',
    's|text.upper()|text.lower()|',
    '"-".join(text.lower()',
    ['slugify("  Many   Spaces ") == "many-spaces"', 'slugify("A") == "a"'],
  ],
  [
    'reverse_words',
    'TestReverseWords',
    'reverse_words("a b c") returns "a b c", it should return "c b a"',
    's|" ".join(text.split())|" ".join(reversed(text.split()))|',
    'join(reversed(',
    ['reverse_words("one") == "one"', 'reverse_words("x  y") == "y x"'],
  ],
  [
    'count_vowels',
    'TestCountVowels',
    'count_vowels("you") returns 1, it should return 2',
    's|in "aeio"|in "aeiou"|',
    'in "aeiou"',
    ['count_vowels("AEIOU") == 5', 'count_vowels("xyz") == 0'],
  ],
  [
    'factorial',
    'TestFactorial',
    'factorial(4) returns 6, it should return 24',
    's|range(1, n):|range(1, n + 1):|',
    'range(1, n + 1):',
    ['factorial(0) == 1', 'factorial(5) == 120'],
  ],
  [
    'fib',
    'TestFib',
    'fib(6) returns 1, it should return 8',
    's|a, b = b, a + a|a, b = b, a + b|',
    'a, b = b, a + b',
    ['fib(1) == 1', 'fib(10) == 55'],
  ],
  [
    'last',
    'TestLast',
    'last([1, 2, 3]) returns 2, it should return 3',
    's|xs\\[-2\\]|xs[-1]|',
    'xs[-1]',
    ['last([7]) == 7', 'last("abc") == "c"'],
  ],
  [
    'capitalize_first',
    'TestCapitalizeFirst',
    'capitalize_first("delta") returns "delta", it should return "Delta"',
    's|text\\[:1\\].lower()|text[:1].upper()|',
    'text[:1].upper()',
    ['capitalize_first("") == ""', 'capitalize_first("a b") == "A b"'],
  ],
  [
    'celsius_to_fahrenheit',
    'TestCelsiusToFahrenheit',
    'celsius_to_fahrenheit(100) returns 203, it should return 212',
    's|9 / 5 + 23|9 / 5 + 32|',
    '9 / 5 + 32',
    ['celsius_to_fahrenheit(0) == 32', 'celsius_to_fahrenheit(-40) == -40'],
  ],
  [
    'is_palindrome',
    'TestIsPalindrome',
    'is_palindrome("ab") returns True, it should return False',
    's|text\\[::1\\]|text[::-1]|',
    'text[::-1]',
    ['is_palindrome("racecar") is True', 'is_palindrome("") is True'],
  ],
  [
    'max_of',
    'TestMaxOf',
    'max_of([3, 9, 1]) returns 1, it should return 9',
    's|sorted(xs)\\[0\\]|sorted(xs)[-1]|',
    'sorted(xs)[-1]',
    ['max_of([-5, -2]) == -2', 'max_of([4]) == 4'],
  ],
  // Wrong: floor division passes percent(1, 4) == 25 but not percent(1, 3) == 33.33...
  [
    'percent',
    'TestPercent',
    'percent(1, 4) returns 2.5, it should return 25',
    's|part / whole \\* 10$|part * 100 // whole|',
    'part * 100 // whole',
    ['abs(percent(1, 3) - 100 / 3) < 1e-9', 'percent(7, 7) == 100'],
  ],
  [
    'strip_prefix',
    'TestStripPrefix',
    'strip_prefix("v1.2", "v") returns ".2", it should return "1.2"',
    's|len(prefix) + 1:|len(prefix):|',
    'text[len(prefix):]',
    ['strip_prefix("abc", "x") == "abc"', 'strip_prefix("prefix-x", "prefix-") == "x"'],
  ],
];
/** The task whose verifier is broken: it looks for the repository where this one is not. */
const BROKEN_VERIFIER = 'fib';

const directory = process.argv[2];
if (!directory) {
  console.error('usage: node examples/swe-bench-shaped/many-tasks.mjs DIR   (then see the comment at the top of this file)');
  process.exit(2);
}
const out = resolve(directory);
mkdirSync(out, { recursive: true });

const show = (name) => `sed -n '/def ${name}(/,/^$/p' textkit/core.py`;
const tasks = [];
const steps = [];
for (const [name, testClass, symptom, sed, fixed, hidden] of BUGS) {
  const id = `textkit-${name.replaceAll('_', '-')}`;
  const tests = join(out, 'tests', id);
  mkdirSync(tests, { recursive: true });
  const repository = name === BROKEN_VERIFIER ? '/testbed/src' : '/testbed';
  writeFileSync(
    join(tests, 'test.sh'),
    [
      '#!/bin/sh',
      `# The verifier of ${id} (written by many-tasks.mjs): apply the hidden tests, run them with the failing one.`,
      `cd ${repository} || exit 2`,
      'cp /tests/test_hidden.py tests/test_hidden.py',
      `python3 -m unittest tests.test_core.${testClass} tests.test_hidden`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(tests, 'test_hidden.py'),
    [
      'import unittest',
      '',
      `from textkit.core import ${name}`,
      '',
      '',
      'class TestHidden(unittest.TestCase):',
      ...hidden.flatMap((check, index) => [`    def test_${index + 1}(self):`, `        self.assertTrue(${check})`, '']),
    ].join('\n'),
  );
  tasks.push({
    id,
    message: `${name} in textkit/core.py is wrong: ${symptom}. The failing test is tests.test_core.${testClass}. Fix the code in /testbed.`,
    image: 'image:textkit',
    tests: `tests/${id}`,
    metadata: { function: name },
  });
  const call = (script) => ({ tool_calls: [{ name: 'bash', arguments: { script } }] });
  const test = (lines) => `python3 -m unittest tests.test_core.${testClass} 2>&1 | tail -n ${lines}`;
  steps.push(
    { when: { last_message: symptom }, ...call(`cd /testbed && ${show(name)} && ${test(3)}`) },
    { when: { last_message: `def ${name}(` }, ...call(`cd /testbed && sed -i '${sed}' textkit/core.py && ${show(name)} && ${test(1)}`) },
    { when: { last_message: fixed }, content: `Fixed ${name} in textkit/core.py: ${fixed}` },
  );
}
writeFileSync(join(out, 'tasks.jsonl'), `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
// JSON is YAML: one step per line, each answering the request its `when` names.
writeFileSync(
  join(out, 'fake-llm.yaml'),
  `# Written by examples/swe-bench-shaped/many-tasks.mjs: three steps per task (look, fix with sed, answer).\n{"steps": [\n${steps.map((step) => `  ${JSON.stringify(step)}`).join(',\n')}\n]}\n`,
);
console.log(
  `${tasks.length} tasks in ${join(out, 'tasks.jsonl')}, their verifiers in ${join(out, 'tests')}, the scripted model in ${join(out, 'fake-llm.yaml')}`,
);
