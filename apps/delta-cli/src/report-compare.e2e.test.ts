import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm, modelEnv } from '@delta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

let llm: FakeLlm;
beforeAll(async () => {
  // Answers each task with its own message.
  llm = await startFakeLlm({
    script: (request) => {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      return { content: `answer: ${messages.find((message) => message.role === 'user')?.content}` };
    },
  });
});
afterAll(async () => {
  await llm.close();
  await cleanupTempDirs();
});

const agentYaml = { name: 'answerer', llm: { model: 'fake-model', max_retries: 2 }, tools: [] };

describe('delta report compares', () => {
  it('prints the matrix and the paired test, compares two batches, groups --by metadata, picks --grader', async () => {
    const agent = await createTempAgent({ agentYaml });
    const directory = await createTempDir();
    const tasksFile = join(directory, 'tasks.jsonl');
    const tasks = [1, 2, 3, 4].map((n) =>
      JSON.stringify({ id: `q${n}`, message: `do ${n}`, metadata: { level: n <= 2 ? 'easy' : 'hard' } }),
    );
    writeFileSync(tasksFile, `${tasks.join('\n')}\n`);
    const env = modelEnv(llm);
    // Before: passes q1 and q2. After: passes every task.
    const before = 'case "$DELTA_FINAL_ANSWER" in *"do 1"|*"do 2") exit 0;; *) exit 1;; esac';
    const after = 'exit 0';
    const outA = join(directory, 'before');
    const outB = join(directory, 'after');
    expect((await runDelta(['batch', tasksFile, '--agent', agent, '--out', outA, '--grader', before], { env })).exitCode).toBe(0);
    expect((await runDelta(['batch', tasksFile, '--agent', agent, '--out', outB, '--grader', after], { env })).exitCode).toBe(0);

    const one = await runDelta(['report', outA]);
    expect(one.exitCode).toBe(0);
    expect(one.stdout).toMatch(/^task\s+fake-model$/m);
    expect(one.stdout).toMatch(/^q1\s+1\/1$/m);
    expect(one.stdout).toMatch(/^q4\s+0\/1$/m);
    expect(one.stdout).toMatch(/^Grader [0-9a-f]{12}: case /m);

    const two = await runDelta(['report', outA, outB]);
    expect(two.stderr).toBe('');
    expect(two.exitCode).toBe(0);
    expect(two.stdout).toContain('Common tasks (matched by id): 4; only in A: 0; only in B: 0.');
    expect(two.stdout).toContain('Models compared (matched by name): fake-model.');
    // A passes 2 of 4, B all 4: B better on 2 tasks, A on none; McNemar exact p = 2 * 1/4 = 0.5. Differences 0 0 -1 -1:
    // mean -0.5, sd 0.5774, t(3) 3.182, so -0.5 +- 0.9186, the low end held at -1.
    expect(two.stdout).toMatch(
      /A:fake-model\s+B:fake-model\s+4\s+50\.0%\s+100\.0%\s+-50\.0 \[-100\.0, \+41\.9\] pts\s+0\s+2\s+McNemar exact\s+0\.5$/m,
    );
    const csv = await runDelta(['report', outA, outB, '--csv']);
    // The columns are the same whatever the number of comparisons: p_holm, last, is empty for a single one.
    const [header, row] = csv.stdout.split('\n');
    expect(header?.endsWith(',p_value,p_holm')).toBe(true);
    expect(row).toBe('A:fake-model,B:fake-model,4,0.5,1,-0.5,-1,0.4186,0,2,2,mcnemar_exact,0.5,');

    const grouped = await runDelta(['report', outA, '--by', 'metadata.level', '--json']);
    const groups = JSON.parse(grouped.stdout).groups;
    expect(groups.key).toBe('metadata.level');
    expect(groups.groups.map((group: { value: string; all: { score: { mean: number } } }) => [group.value, group.all.score.mean])).toEqual([
      ['easy', 1],
      ['hard', 0],
    ]);

    // A second grader on batch A adds its grades; the report still shows the batch's own grader, and --grader the other.
    expect((await runDelta(['grade', outA, '--grader', after])).exitCode).toBe(0);
    const own = JSON.parse((await runDelta(['report', outA, '--json'])).stdout);
    expect(own.grader.command).toBe(before);
    expect(own.by_model[0].score.mean).toBe(0.5);
    const later = JSON.parse((await runDelta(['report', outA, '--json', '--grader', after])).stdout);
    expect(later.grader.command).toBe(after);
    expect(later.by_model[0].score.mean).toBe(1);
    const unknown = await runDelta(['report', outA, '--grader', 'ffffffff']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('was graded by "ffffffff"');
    expect((await runDelta(['report', outA, outB, outA])).exitCode).toBe(2);
  }, 120_000);
});

describe('delta report on a TASKS file written by someone else', () => {
  it('shows the control characters of a metadata value, never sends them to the terminal', async () => {
    const agent = await createTempAgent({ agentYaml });
    const directory = await createTempDir();
    const tasksFile = join(directory, 'tasks.jsonl');
    const hostile = '\u001b[31mRED\u001b]0;TITLE\u0007';
    writeFileSync(tasksFile, `${JSON.stringify({ id: 'q1', message: 'do 1', metadata: { group: hostile } })}\n`);
    const out = join(directory, 'out');
    const env = modelEnv(llm);
    expect((await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--grader', 'exit 0'], { env })).exitCode).toBe(0);
    for (const extra of [[], ['--csv']]) {
      const report = await runDelta(['report', out, '--by', 'metadata.group', ...extra]);
      expect(report.exitCode).toBe(0);
      expect(report.stdout).not.toMatch(/[\u0007\u001b]/);
      expect(report.stdout).toContain('\\u001b[31mRED\\u001b]0;TITLE\\u0007');
    }
  });
});
