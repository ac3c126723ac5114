import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { DELTA_BIN, runProcess, runScripted } from './run-delta.js';
import { EXAMPLE, swebenchImage, swebenchSkip } from './swe-bench-image.js';

afterEach(cleanupTempDirs);

const runDir = (out: string, task: string) => join(out, task, 'gpt-4o-mini', '1', '.delta', 'run-1');
const grade = (out: string, task: string) => JSON.parse(readFileSync(join(runDir(out, task), 'grade.json'), 'utf8'));

describe.skipIf(swebenchSkip !== undefined)('examples/swe-bench-shaped', () => {
  it("builds the image from Debian packages, and the scripted model's fix is what the verifier sees in it: clamp resolved, percent not", async () => {
    const { layout, imageCache } = swebenchImage();
    const directory = await createTempDir('swe-bench-shaped-');
    const example = join(directory, 'swe-bench-shaped');
    cpSync(EXAMPLE, example, { recursive: true });
    cpSync(layout, join(example, 'image'), { recursive: true });
    const out = join(directory, 'results');

    const batch = await runScripted(
      join(example, 'fake-llm.yaml'),
      ['batch', join(example, 'tasks.jsonl'), '--agent', example, '--out', out, '--concurrency', '2'],
      { env: { DELTA_IMAGE_CACHE: imageCache } },
    );
    expect(batch.stderr).toBe('');
    expect(batch.exitCode).toBe(0);
    expect(batch.stdout).toContain('2 runs: 2 completed, 0 failed');

    // The model's sed landed in the run's own layer, at /testbed in the image; the other run has its own.
    const changed = (task: string) => readFileSync(join(runDir(out, task), 'layer', 'upper', 'testbed', 'textkit', 'core.py'), 'utf8');
    expect(changed('textkit-clamp')).toContain('    return max(lo, min(x, hi))\n');
    expect(changed('textkit-clamp')).toContain('    return part / whole * 10\n');
    expect(changed('textkit-percent')).toContain('    return part * 100 // whole\n');
    expect(changed('textkit-percent')).toContain('    return max(lo, min(x, lo))\n');

    // The verifier ran in the image, with the run's changes and the hidden tests: it saw the fix and passed it.
    const clamp = grade(out, 'textkit-clamp');
    expect(clamp).toMatchObject({ score: 1, passed: true, exit_code: 0, ran_in: 'image', grader: 'sh /tests/test.sh' });
    expect(readFileSync(clamp.output.stdout, 'utf8')).toBe(
      'the code the verifier sees:\ndef clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n',
    );
    expect(readFileSync(clamp.output.stderr, 'utf8')).toMatch(/Ran 4 tests in [\d.]+s\n\nOK\n$/);
    // percent's "fix" passes the repository's test but not the verifier's hidden ones.
    const percent = grade(out, 'textkit-percent');
    expect(percent).toMatchObject({ score: 0, passed: false, exit_code: 1, ran_in: 'image' });
    expect(readFileSync(percent.output.stdout, 'utf8')).toContain('    return part * 100 // whole\n');
    expect(readFileSync(percent.output.stderr, 'utf8')).toContain('AssertionError: 33 != 33.333333333333336');
    const journal = readFileSync(join(runDir(out, 'textkit-percent'), 'journal.jsonl'), 'utf8');
    expect(journal).toContain('Ran 1 test');
    // The hidden tests were the verifier's alone: the agent's layer never held them.
    expect(existsSync(join(runDir(out, 'textkit-percent'), 'layer', 'upper', 'testbed', 'tests', 'test_hidden.py'))).toBe(false);

    const report = await runProcess(process.execPath, [DELTA_BIN, 'report', out]);
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toMatch(/\ngpt-4o-mini\s+2\s+2\s+0\s+0\s+0\s+1\/2\s+1\s+0\s+50% \[9-91\]\s/);
    expect(report.stdout).toMatch(/\ntextkit-clamp\s+1\s+1\s+0\s+0\s+0\s+1\/1\s+0\s+0\s+100% \[21-100\]\s/);
    expect(report.stdout).toMatch(/\ntextkit-percent\s+1\s+1\s+0\s+0\s+0\s+0\/1\s+1\s+0\s+0% \[0-79\]\s/);
  }, 180_000);

  it('many-tasks.mjs: 16 tasks over the image, 13 resolved, 2 failed verifications, 1 verifier error, through delta report', async () => {
    const { layout, imageCache } = swebenchImage();
    const directory = await createTempDir('swe-bench-16-');
    cpSync(layout, join(directory, 'image'), { recursive: true });
    const written = await runProcess(process.execPath, [join(EXAMPLE, 'many-tasks.mjs'), directory]);
    expect(written.exitCode, written.stderr).toBe(0);
    expect(written.stdout).toContain(`16 tasks in ${join(directory, 'tasks.jsonl')}`);
    const out = join(directory, 'results');
    const batch = await runScripted(
      join(directory, 'fake-llm.yaml'),
      ['batch', join(directory, 'tasks.jsonl'), '--agent', EXAMPLE, '--out', out, '--concurrency', '4'],
      { env: { DELTA_IMAGE_CACHE: imageCache } },
    );
    expect(batch.stderr).toBe('');
    expect(batch.exitCode).toBe(0);
    expect(batch.stdout).toContain('16 runs: 16 completed, 0 failed');
    expect(batch.stdout).toContain("can't cd to /testbed/src");

    const report = await runProcess(process.execPath, [DELTA_BIN, 'report', out]);
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toContain('16 tasks x 1 model x 1 repeat = 16 runs');
    expect(report.stdout).toMatch(/\ngpt-4o-mini\s+16\s+16\s+0\s+0\s+0\s+13\/15\s+2\s+1\s+87% \[62-96\]\s/);
    expect(report.stdout).toMatch(/\ntextkit-fib\s+1\s+1\s+0\s+0\s+0\s+-\s+-\s+1\s+-\s/);
    for (const task of ['textkit-mean', 'textkit-percent']) expect(grade(out, task)).toMatchObject({ score: 0, ran_in: 'image' });
  }, 180_000);
});
