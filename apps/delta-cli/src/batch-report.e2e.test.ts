import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cleanupTempDirs, runProcess } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELTA_BIN, runDelta } from './test-support.js';
import { setup, startLlm, stopLlm } from './batch.test-support.js';

beforeAll(() => startLlm());
afterEach(() => cleanupTempDirs());
afterAll(stopLlm);

describe('delta batch', () => {
  it('grades with --grader, reports per model and per task (text, --csv, --json), and re-scores with delta grade', async () => {
    const { agent, tasksFile, out, env } = await setup(3);
    // Passes when the answer names the task's number, which the model does for tasks 1 and 2 only.
    const grader = 'case "$DELTA_FINAL_ANSWER" in *"do 1"*|*"do 2"*) exit 0;; *) exit 1;; esac';
    const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--grader', grader], { env });
    expect(batch.exitCode).toBe(0);
    expect(batch.stdout).toContain('score 1');
    expect(batch.stdout).toContain('score 0');

    const text = await runDelta(['report', out]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('3 tasks x 1 model x 1 repeat = 3 runs');
    expect(text.stdout).toMatch(/fake-model\s+3\s+3\s+0\s+0\s+0\s+2\/3\s+1\s+0\s+67% \[21-94\]\s+3\s/);
    expect(text.stdout).toMatch(/task-3\s+1\s+1\s+0\s+0\s+0\s+0\/1\s+1\s+0\s+0% \[0-79\]/);

    const csv = await runDelta(['report', out, '--csv']);
    expect(csv.stdout.split('\n')[1]).toMatch(/^model,fake-model,3,3,0,0,3,pass_rate,0\.6667,/);
    const json = JSON.parse((await runDelta(['report', out, '--json'])).stdout);
    expect(json.by_task.map((task: { score: { mean: number } }) => task.score.mean)).toEqual([1, 1, 0]);
    expect(json.runs).toHaveLength(3);

    const regrade = await runDelta(['grade', out, '--grader', 'echo \'{"score": 0.25}\'']);
    expect(regrade.exitCode).toBe(0);
    expect(regrade.stdout).toContain('3 runs graded.');
    // The batch's own grader stays the report's default; --grader (on report and view) picks the other.
    const after = JSON.parse((await runDelta(['report', out, '--json'])).stdout);
    expect(after).toMatchObject({ grader: { command: grader }, grader_choice: 'batch' });
    expect(after.by_model[0]).toMatchObject({ metric: 'pass_rate', score: { mean: 2 / 3 } });
    const other = after.graders.find((summary: { command: string }) => summary.command !== grader).hash as string;
    const picked = JSON.parse((await runDelta(['report', out, '--json', '--grader', other])).stdout);
    expect(picked.by_model[0]).toMatchObject({ metric: 'mean_score', score: { mean: 0.25 } });

    const ownPage = readFileSync((await runDelta(['view', out])).stdout.trim(), 'utf8');
    expect(ownPage).toContain(`<table id="matrix" class="matrix" data-grader="${after.grader.hash}">`);
    const view = await runDelta(['view', out, '--grader', other.slice(0, 6)]);
    expect(view.exitCode, view.stderr).toBe(0);
    const page = readFileSync(view.stdout.trim(), 'utf8');
    // Every figure names the grader its scores come from: the matrix, the bars, the per-model summary.
    expect(page.match(/data-grader="([0-9a-f]*)"/g)).toEqual([
      `data-grader="${other}"`,
      `data-grader="${other}"`,
      `data-grader="${other}"`,
    ]);
    expect(page).toContain(`mean score per task and model, grader <code title="echo &#39;{&quot;score&quot;: 0.25}&#39;">${other}</code>`);
    expect(page).toContain('(picked with --grader;');
    const unknown = await runDelta(['view', out, '--grader', 'ffffff']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('No run of the batch');
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v script']).status !== 0)(
    'on a terminal, keeps a live line of done, running, failed, ETA and tokens (under script(1), which gives it one)',
    async () => {
      const { agent, tasksFile, out, env } = await setup(3);
      const command = [process.execPath, DELTA_BIN, 'batch', tasksFile, '--agent', agent, '--out', out]
        .map((word) => `'${word}'`)
        .join(' ');
      // Asynchronously: the model server answers from this process. A terminal wide enough for the whole live line.
      const result = await runProcess('script', ['-qec', `stty cols 200 && ${command}`, '/dev/null'], {
        env: { ...process.env, DELTA_API_KEY: 'k', DELTA_BASE_URL: env.DELTA_BASE_URL, OPENAI_API_KEY: undefined },
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/\d\/3 done · \d running · 0 failed · ETA [^·]+ · [\d,]+ tokens/);
      expect(result.stdout).toContain('3 runs: 3 completed');
    },
  );

  it.skipIf(spawnSync('sh', ['-c', 'command -v script']).status !== 0)(
    'on a terminal with two models, keeps one line per model under the live line: done, failed, pass rate, tokens',
    async () => {
      const { agent, tasksFile, out, env } = await setup(2);
      const command = [process.execPath, DELTA_BIN, 'batch', tasksFile, '--agent', agent, '--out', out]
        .concat(['--model', 'model-a,model-b', '--grader', 'true', '--concurrency', '1'])
        .map((word) => `'${word}'`)
        .join(' ');
      // A terminal wide enough for the whole live line: at the default 100 columns a memory of 100 MB or more cut it.
      const result = await runProcess('script', ['-qec', `stty cols 200 && ${command}`, '/dev/null'], {
        env: { ...process.env, DELTA_API_KEY: 'k', DELTA_BASE_URL: env.DELTA_BASE_URL, OPENAI_API_KEY: undefined },
      });
      expect(result.exitCode).toBe(0);
      // The last drawing of the live block, before it is cleared: the live line, then one line per model.
      const last = result.stdout.lastIndexOf('4/4 done');
      const block = result.stdout.slice(last, result.stdout.indexOf('\r\u001b[2K', last));
      // The whole block in the message: the diff of a long line is cut short.
      expect(block, JSON.stringify(block)).toMatch(
        /^4\/4 done · 0 running · 0 failed · pass rate 100% \(4\/4\) · ETA [^·]+ · [\d,]+ tokens · \d+ process(es)?, \d+(\.\d)? [MG]B\r?\n {2}model-a {2}2\/2 done · 0 failed · pass rate 100% \(2\/2\) · [1-9][\d,]* tokens\r?\n {2}model-b {2}2\/2 done · 0 failed · pass rate 100% \(2\/2\) · [1-9][\d,]* tokens/,
      );
    },
  );
});
