import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createNoteAgent, noteScript, writeTasks } from './batch-fixture.test-support.js';
import { batchReport } from './batch-report.js';
import { gradeBatch } from './grade-batch.js';
import { graderHash } from './grade-store.js';
import { reportCsv } from './report-format.js';
import { runBatch } from './run-batch.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ script: noteScript() });
});
afterAll(() => llm.close());
afterEach(() => cleanupTempDirs());

// Passes when the answer is the expected value (DELTA_EXPECTED is JSON: "4" with its quotes).
const EXACT = 'test "\\"$DELTA_FINAL_ANSWER\\"" = "$DELTA_EXPECTED"';

describe('grading', () => {
  it('scores each completed run into grade.json by exit code, and the report gives the pass rate with its interval', async () => {
    const agent = await createNoteAgent();
    const tasksFile = await writeTasks(3, { wrong: ['t3'] });
    const out = join(await createTempDir(), 'out');
    const summary = await runBatch({ tasksFile, agent, out, grader: EXACT, baseUrl: llm.baseUrl, apiKey: 'k' });
    expect(summary.completed).toBe(3);
    const runDir = (task: string) => runPaths(join(out, task, 'fake-model', '1'), 'run-1').runDir;
    expect(JSON.parse(readFileSync(join(runDir('t1'), 'grade.json'), 'utf8'))).toMatchObject({
      score: 1,
      passed: true,
      exit_code: 0,
      run_id: 'run-1',
      grader: EXACT,
    });
    expect(JSON.parse(readFileSync(join(runDir('t3'), 'grade.json'), 'utf8'))).toMatchObject({ score: 0, passed: false, exit_code: 1 });
    const input = JSON.parse(readFileSync(join(runDir('t2'), 'grade-input.json'), 'utf8'));
    expect(input).toMatchObject({ task: { id: 't2', expected: '4', metadata: { index: 1 } }, final_answer: '4', status: 'COMPLETED' });
    // The journal stays as the engine wrote it.
    expect(readFileSync(runPaths(join(out, 't1', 'fake-model', '1'), 'run-1').journal, 'utf8')).not.toContain('grade');

    const report = batchReport(out);
    expect(report.by_model).toHaveLength(1);
    expect(report.by_model[0]).toMatchObject({
      name: 'fake-model',
      runs: 3,
      completed: 3,
      scored: 3,
      metric: 'pass_rate',
      median_iterations: 3,
    });
    expect(report.by_model[0]!.score!.mean).toBeCloseTo(2 / 3, 6);
    expect(report.by_model[0]!.score!.low).toBeCloseTo(0.2077, 3);
    expect(report.by_task.map((task) => task.score?.mean)).toEqual([1, 1, 0]);
    expect(report.by_model[0]!.prompt_tokens).toBeGreaterThan(0);
    expect(report.by_model[0]!.median_duration_ms).toBeGreaterThan(0);
    const csv = reportCsv(report).split('\n');
    expect(csv[0]).toBe(
      'group,name,runs,completed,failed,unfinished,scored,metric,score,ci_low,ci_high,median_iterations,prompt_tokens,completion_tokens,cached_tokens,cost,currency,median_duration_ms,limit_hits,passes,failed_verifications,verifier_errors,model,task',
    );
    expect(csv[1]).toMatch(/^model,fake-model,3,3,0,0,3,pass_rate,0\.6667,/);
    expect(csv[4]).toMatch(/^task,t3,1,1,0,0,1,pass_rate,0,/);
  });

  it('re-scores without re-running: a grader that prints {"score": ...} replaces grade.json, and the report gives the mean', async () => {
    const agent = await createNoteAgent();
    const tasksFile = await writeTasks(2);
    const out = join(await createTempDir(), 'out');
    await runBatch({ tasksFile, agent, out, baseUrl: llm.baseUrl, apiKey: 'k' });
    const requests = llm.requests.length;
    const grades = await gradeBatch(out, {
      grader: 'echo "looking at $DELTA_TASK_ID"; echo "{\\"score\\": $(( $(cat notes.txt | wc -l) * DELTA_REPEAT )).5, \\"lines\\": true}"',
    });
    expect(grades.map((entry) => entry.grade.score)).toEqual([2.5, 2.5]);
    expect(grades[0]!.grade.details).toEqual({ score: 2.5, lines: true });
    expect(llm.requests.length).toBe(requests);
    const report = batchReport(out);
    expect(report.by_model[0]).toMatchObject({ metric: 'mean_score', score: { mean: 2.5, low: 2.5, high: 2.5 } });

    const broken = await gradeBatch(out, { grader: 'exit 7' });
    expect(broken[0]!.grade).toMatchObject({ score: null, exit_code: 7 });
    expect(broken[0]!.grade.error).toContain('exited with code 7');
  });

  it("takes agent.yaml's grader when no grader is given, with DELTA_AGENT_HOME naming the agent directory", async () => {
    const agent = await createNoteAgent({ grader: 'sh "$DELTA_AGENT_HOME/grade.sh"' });
    writeFileSync(join(agent, 'grade.sh'), 'echo "{\\"score\\": 0.5, \\"task\\": \\"$DELTA_TASK_ID\\"}"\n');
    const tasksFile = await writeTasks(1);
    const out = join(await createTempDir(), 'out');
    await runBatch({ tasksFile, agent, out, baseUrl: llm.baseUrl, apiKey: 'k' });
    const grade = JSON.parse(readFileSync(join(runPaths(join(out, 't1', 'fake-model', '1'), 'run-1').runDir, 'grade.json'), 'utf8'));
    expect(grade).toMatchObject({ score: 0.5, details: { task: 't1' }, grader: 'sh "$DELTA_AGENT_HOME/grade.sh"' });
  });

  it('grades with a built-in grader by name (builtin:exact), nothing started, and refuses an unknown name before any run', async () => {
    const agent = await createNoteAgent();
    const tasksFile = await writeTasks(3, { wrong: ['t3'] });
    const out = join(await createTempDir(), 'out');
    await runBatch({ tasksFile, agent, out, grader: 'builtin:exact', baseUrl: llm.baseUrl, apiKey: 'k' });
    const runDir = (task: string) => runPaths(join(out, task, 'fake-model', '1'), 'run-1').runDir;
    expect(JSON.parse(readFileSync(join(runDir('t1'), 'grade.json'), 'utf8'))).toMatchObject({
      score: 1,
      passed: true,
      grader: 'builtin:exact',
      grader_hash: graderHash('builtin:exact'),
      exit_code: null,
    });
    expect(batchReport(out).by_task.map((task) => task.score?.mean)).toEqual([1, 1, 0]);

    // Another grader adds its own file; the first one's stays as it was.
    const before = readFileSync(join(runDir('t3'), 'grades', `${graderHash('builtin:exact')}.json`), 'utf8');
    await gradeBatch(out, { grader: 'builtin:numeric:0.5' });
    expect(readFileSync(join(runDir('t3'), 'grades', `${graderHash('builtin:exact')}.json`), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(join(runDir('t3'), 'grades', `${graderHash('builtin:numeric:0.5')}.json`), 'utf8'))).toMatchObject({
      score: null,
      error: 'builtin:numeric needs a number as "expected", got "nope"',
    });

    const requests = llm.requests.length;
    const other = join(await createTempDir(), 'other');
    await expect(runBatch({ tasksFile, agent, out: other, grader: 'builtin:exakt', baseUrl: llm.baseUrl, apiKey: 'k' })).rejects.toThrow(
      /no built-in grader "exakt"/,
    );
    await expect(gradeBatch(out, { grader: 'builtin:regexp' })).rejects.toThrow(/no built-in grader "regexp"/);
    expect(llm.requests.length).toBe(requests);
  });
});
