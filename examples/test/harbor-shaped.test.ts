// examples/harbor-shaped end to end, as its README runs it: the task's image built with umoci and
// busybox-static (no daemon), `delta batch DIR --oracle` (no model, no key), then the agent's batch with the
// scripted model in the same OUT, the verifier's verdict in the image, and the report.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { DELTA_BIN, FAKE_LLM_BIN, REPOSITORY_ROOT, runProcess } from './run-delta.js';

afterEach(cleanupTempDirs);

const missing = [
  ...['umoci', 'bwrap'].filter((tool) => spawnSync(tool, ['--version']).error !== undefined),
  ...(['/bin/busybox', '/usr/bin/busybox'].some((path) => existsSync(path)) ? [] : ['busybox-static']),
];
const unavailable =
  process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE ??
  process.env.DELTA_TEST_IMAGE_TOOLS_UNAVAILABLE ??
  (missing.length > 0 ? `not installed: ${missing.join(', ')}` : undefined);
if (unavailable) console.warn(`\n!!!!!!!!\n!!! SKIPPING examples/harbor-shaped: ${unavailable}.\n!!!!!!!!\n`);

describe.skipIf(unavailable !== undefined)('examples/harbor-shaped', () => {
  it('passes its oracle, then the scripted agent passes the verifier in the image, and the report shows both', async () => {
    const directory = await createTempDir('harbor-shaped-');
    const example = join(directory, 'harbor-shaped');
    cpSync(join(REPOSITORY_ROOT, 'examples/harbor-shaped'), example, { recursive: true, filter: (path) => !path.endsWith('/images') });
    const env = { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, DELTA_IMAGE_CACHE: join(directory, 'cache') };
    const built = await runProcess('sh', [join(example, 'build-image.sh')], { env });
    expect(built.exitCode, built.stderr).toBe(0);
    expect(built.stdout).toBe(`built ${join(example, 'images')}:fix-greeting\n`);

    const out = join(directory, 'harbor-out');
    const batch = [
      DELTA_BIN,
      'batch',
      join(example, 'tasks'),
      '--agent',
      join(example, 'agent'),
      '--out',
      out,
      '--image-map',
      join(example, 'images.yaml'),
    ];
    const oracle = await runProcess(process.execPath, [...batch, '--oracle'], { env });
    expect(oracle.exitCode, oracle.stderr).toBe(0);
    expect(oracle.stdout).toBe(
      `oracle passed  fix-greeting  (${join(out, 'fix-greeting', 'oracle', '1')})\n` +
        'Oracle: 1 passed, 0 failed, of 1 task (verified by bash /tests/test.sh).\n',
    );

    const agent = await runProcess(
      process.execPath,
      [FAKE_LLM_BIN, '--script', join(example, 'agent', 'fake-llm.yaml'), '--', process.execPath, ...batch],
      {
        env,
      },
    );
    expect(agent.exitCode, agent.stderr).toBe(0);
    expect(agent.stdout).toMatch(/^COMPLETED fix-greeting \/ gpt-4o-mini \/ 1 \(started, 3 iterations, [\d,]+ tokens, score 1\)$/m);
    const runDir = join(out, 'fix-greeting', 'gpt-4o-mini', '1', '.delta', 'run-1');
    const grade = JSON.parse(readFileSync(join(runDir, 'grade.json'), 'utf8'));
    expect(grade).toMatchObject({
      grader: 'bash /tests/test.sh',
      score: 1,
      passed: true,
      ran_in: 'image',
      details: { reward_file: 'reward.txt' },
    });
    // The agent looked before it changed anything: the image's typo, seen in the image.
    expect(readFileSync(join(runDir, 'journal.jsonl'), 'utf8')).toContain('"observation_content":"helo world"');

    const report = await runProcess(process.execPath, [DELTA_BIN, 'report', out], { env });
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.stdout).toContain("Oracle (each task's solution, verified by bash /tests/test.sh): 1 of 1 task passed; 0 failed.\n");
    expect(report.stdout).toMatch(/^gpt-4o-mini\s+1\s+1\s+0\s+0\s+0\s+1\/1\s+0\s+0\s+100% \[21-100\]/m);
    expect(report.stdout).toContain("Grader cc1df8655a05: bash /tests/test.sh (the batch's own; 1 run graded)\n");

    // The oracle's run, as the README says to look at it: what solve.sh changed in the image.
    const shown = await runProcess(process.execPath, [DELTA_BIN, 'show', 'run', '-w', join(out, 'fix-greeting', 'oracle', '1')], { env });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('changed outside the workspace: 1 path\n  written /app/greeting.txt\n');

    // Graded again by another command (the same verifier, said otherwise): one run, in the singular.
    const regraded = await runProcess(process.execPath, [DELTA_BIN, 'grade', out, '--grader', 'sh /tests/test.sh'], { env });
    expect(regraded.exitCode, regraded.stderr).toBe(0);
    expect(regraded.stdout).toBe(`fix-greeting / gpt-4o-mini / 1: score 1\n1 run graded. Report: delta report ${out}\n`);
  }, 180_000);
});
