import { cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempDir, type FakeLlm, type RecordedRequest, startFakeLlm } from '@delta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNoteAgent, noteScript, writeTasks } from './batch-fixture.test-support.js';
import { batchReport } from './batch-report.js';
import { compareBatches } from './compare-batches.js';
import { gradeBatch } from './grade-batch.js';
import { graderHash } from './grade-store.js';
import { comparisonsCsv } from './report-comparison-format.js';
import { reportCsv, reportText } from './report-format.js';
import { runBatch } from './run-batch.js';

// The fixture: batch A, tasks t1..t12, models m-a and m-b, one run each. m-a's run of t12 FAILS (the model
// answers HTTP 400). A grader passes exactly the "task model" lines of a list file, so every grade is known:
//   m-a passes t1 t2 t3;  m-b passes t2 .. t12.
// (The model is retried, so that a transient fault on a loaded machine does not fail another run; a 400 is not retried.)
// Batch B: tasks t2..t13, model m-a alone, passing t2 .. t10 and t13.
const A_PASSES = ['t1 m-a', 't2 m-a', 't3 m-a', ...Array.from({ length: 11 }, (_, index) => `t${index + 2} m-b`)];
const B_PASSES = [...Array.from({ length: 9 }, (_, index) => `t${index + 2} m-a`), 't13 m-a'];

const base = noteScript();
function script(request: RecordedRequest) {
  const body = request.body as { model: string; messages: { role: string; content: unknown }[] };
  if (body.model === 'm-a' && JSON.stringify(body.messages).includes('Say 24')) {
    return { error: { status: 400, message: 'this model cannot say 24' } };
  }
  return base(request);
}

let llm: FakeLlm;
let outA: string;
let outB: string;
let firstGrader: string;
let passesA: string;

/** A Student-t 95% half-width for n values with this sum of squared deviations (t for 10 and 11 degrees of freedom). */
function halfWidth(n: number, squares: number): number {
  const t = n === 11 ? 2.228 : 2.201;
  return t * Math.sqrt(squares / (n - 1) / n);
}

beforeAll(async () => {
  llm = await startFakeLlm({ script });
  const home = await createTempDir();
  const agent = await createNoteAgent({
    llm: { model: 'm-a', max_retries: 3, pricing: { input_per_million: 0.3, output_per_million: 1.7, currency: 'USD' } },
  });
  const grade = join(home, 'grade.sh');
  writeFileSync(grade, 'grep -qx "$DELTA_TASK_ID $DELTA_MODEL" "$1"\n');
  passesA = join(home, 'passes-a.txt');
  writeFileSync(passesA, `${A_PASSES.join('\n')}\n`);
  const passesB = join(home, 'passes-b.txt');
  writeFileSync(passesB, `${B_PASSES.join('\n')}\n`);
  firstGrader = `sh ${grade} ${passesA}`;
  outA = join(home, 'out-a');
  const tasksA = await writeTasks(12);
  await runBatch({ tasksFile: tasksA, agent, out: outA, models: ['m-a', 'm-b'], grader: firstGrader, baseUrl: llm.baseUrl, apiKey: 'k' });
  outB = join(home, 'out-b');
  const tasksB = await writeTasks(13);
  writeFileSync(tasksB, readFileSync(tasksB, 'utf8').split('\n').slice(1).join('\n'));
  await runBatch({
    tasksFile: tasksB,
    agent,
    out: outB,
    models: ['m-a'],
    grader: `sh ${grade} ${passesB}`,
    baseUrl: llm.baseUrl,
    apiKey: 'k',
  });
}, 120_000);
afterAll(async () => {
  await llm.close();
  await cleanupTempDirs();
});

describe('a report that compares', () => {
  it('gives the model x task matrix of a graded batch, a FAILED run counting as a fail', () => {
    const report = batchReport(outA);
    expect(report.matrix.metric).toBe('pass_rate');
    expect(report.matrix.models).toEqual(['m-a', 'm-b']);
    const column = (model: string) => report.matrix.cells.filter((cell) => cell.model === model).map((cell) => cell.passes);
    expect(column('m-a')).toEqual([1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(column('m-b')).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const failed = report.runs.find((row) => row.task === 't12' && row.model === 'm-a')!;
    expect(failed.status).toBe('FAILED');
    expect(failed.reason).toContain('cannot say 24');
    expect(report.by_model.map((model) => model.score?.mean)).toEqual([3 / 12, 11 / 12]);
    const text = reportText(report);
    expect(text).toMatch(/^task\s+m-a\s+m-b$/m);
    expect(text).toMatch(/^t1\s+1\/1\s+0\/1$/m);
    expect(text).toMatch(/^t12\s+0\/1\s+1\/1$/m);
  });

  it("compares two models task by task: 1 against 9 discordant tasks gives McNemar's exact p = 0.021484375", () => {
    const [comparison] = batchReport(outA).comparisons;
    expect(comparison).toMatchObject({ a: 'm-a', b: 'm-b', tasks: 12, test: 'mcnemar_exact', a_better: 1, b_better: 9, ties: 2 });
    expect(comparison!.p_value).toBe(0.021484375);
    expect(comparison!.mean_a).toBe(3 / 12);
    expect(comparison!.mean_b).toBe(11 / 12);
    expect(comparison!.difference).toBeCloseTo(-8 / 12, 12);
    // Differences +1 once, -1 nine times, 0 twice: squares (5/3)^2 + 9 (1/3)^2 + 2 (2/3)^2 = 42/9; t(11) = 2.201.
    const half = halfWidth(12, 42 / 9);
    // -1.08 is past the largest possible difference: the interval stops at -1.
    expect(-8 / 12 - half).toBeLessThan(-1);
    expect(comparison!.low).toBe(-1);
    expect(comparison!.high).toBeCloseTo(-8 / 12 + half, 3);
    const text = reportText(batchReport(outA));
    expect(text).toMatch(/m-a\s+m-b\s+12\s+25\.0%\s+91\.7%\s+-66\.7 \[-100\.0, -25\.\d\] pts\s+1\s+9\s+McNemar exact\s+0\.02148/);
    const csv = comparisonsCsv(batchReport(outA).comparisons).split('\n');
    expect(csv[0]).toBe('a,b,tasks,mean_a,mean_b,difference,ci_low,ci_high,a_better,b_better,ties,test,p_value,p_holm');
    // One comparison: nothing to adjust for, p_holm empty.
    expect(csv[1]).toMatch(/^m-a,m-b,12,0\.25,0\.9167,-0\.6667,-1,-0\.25\d\d,1,9,2,mcnemar_exact,0\.0214844,$/);
  });

  it('writes the matrix and the summary as CSV with numbers rounded as displayed', () => {
    const csv = reportCsv(batchReport(outA));
    const lines = csv.trim().split('\n');
    expect(lines[0]).toMatch(/,median_duration_ms,limit_hits,passes,failed_verifications,verifier_errors,model,task$/);
    expect(lines).toContainEqual(expect.stringMatching(/^cell,t1,1,1,0,0,1,pass_rate,1,[0-9.]+,1,.*,m-a,t1$/));
    expect(lines).toContainEqual(expect.stringMatching(/^cell,t12,1,0,1,0,1,pass_rate,0,0,[0-9.]+,.*,m-a,t12$/));
    expect(lines.filter((line) => line.startsWith('cell,'))).toHaveLength(24);
    // No float noise anywhere: at most 6 decimals.
    expect(csv).not.toMatch(/\.\d{7,}/);
    const cost = Number(lines[1]!.split(',')[15]);
    expect(cost).toBeGreaterThan(0);
  });

  it('compares two batches on their common tasks, models matched by name', () => {
    const comparison = compareBatches(outA, outB);
    expect(comparison.common_tasks).toEqual(['t2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 't10', 't11', 't12']);
    expect(comparison.only_a).toEqual(['t1']);
    expect(comparison.only_b).toEqual(['t13']);
    expect(comparison.unmatched_a).toEqual(['m-b']);
    expect(comparison.pairs).toHaveLength(1);
    const pair = comparison.pairs[0]!;
    expect(pair).toMatchObject({ model_a: 'm-a', model_b: 'm-a', matched_by: 'name' });
    // On t2..t12: A passes t2 t3 (t12 FAILED); B passes t2..t10. B better on t4..t10 (7), never worse: p = 2 / 2^7.
    expect(pair.comparison).toMatchObject({ tasks: 11, a_better: 0, b_better: 7, ties: 4, test: 'mcnemar_exact' });
    expect(pair.comparison.p_value).toBe(0.015625);
    expect(pair.comparison.difference).toBeCloseTo(-7 / 11, 12);
    // Differences -1 seven times, 0 four times: squares 7 (4/11)^2 + 4 (7/11)^2 = 308/121; t(10) = 2.228.
    const half = halfWidth(11, 308 / 121);
    expect(pair.comparison.low).toBeCloseTo(-7 / 11 - half, 3);
    expect(pair.comparison.high).toBeCloseTo(-7 / 11 + half, 3);
    expect(comparison.matrix.models).toEqual(['A:m-a', 'B:m-a']);
  });

  it("keeps every grader's grades; the report shows the batch's own grader, names it in every figure, and --grader picks another", async () => {
    const copy = join(await createTempDir(), 'copy');
    cpSync(outA, copy, { recursive: true });
    const second = `sh -c 'test "$DELTA_MODEL" = m-a'`;
    await gradeBatch(copy, { grader: second });
    const runDir = runPaths(join(copy, 't1', 'm-a', '1'), 'run-1').runDir;
    // One verdict per grader, and beside it what that grader printed (its stdout.log and stderr.log).
    expect(readdirSync(join(runDir, 'grades')).sort()).toEqual(
      [firstGrader, second].flatMap((grader) => [`${graderHash(grader)}.grader`, `${graderHash(grader)}.json`]).sort(),
    );
    expect(readdirSync(join(runDir, 'grades', `${graderHash(second)}.grader`)).sort()).toEqual(['stderr.log', 'stdout.log']);
    // The later grading does not flip the headline: the batch's own grader (its --grader) stays the default.
    const own = batchReport(copy);
    expect(own.grader).toMatchObject({ hash: graderHash(firstGrader), command: firstGrader, runs: 23 });
    expect(own.grader_choice).toBe('batch');
    expect(own.graders.map((grader) => grader.hash)).toEqual([graderHash(second), graderHash(firstGrader)]);
    expect(own.by_model.map((model) => model.score?.mean)).toEqual([3 / 12, 11 / 12]);
    const text = reportText(own);
    expect(text.split('\n')[1]).toBe(
      `Grader ${graderHash(firstGrader)}: ${firstGrader} (the batch's own; 23 runs graded; 1 other grader: ${graderHash(second)}, pick one with --grader HASH)`,
    );
    // Each figure names the grader its scores come from.
    const by = `grader ${graderHash(firstGrader)}`;
    expect(text).toContain(`Per model (${by}):`);
    expect(text).toContain(`Per task (${by}):`);
    expect(text).toContain(`Passes per task and model (${by}; `);
    expect(text).toContain(`Paired comparisons (${by}), task by task`);

    const picked = batchReport(copy, { grader: graderHash(second).slice(0, 6) });
    expect(picked.grader_choice).toBe('asked');
    expect(picked.by_model.map((model) => model.score?.mean)).toEqual([11 / 12, 0]);
    expect(reportText(picked)).toContain(`Per model (grader ${graderHash(second)}):`);
    expect(batchReport(copy, { grader: second }).grader?.hash).toBe(graderHash(second));
    expect(() => batchReport(copy, { grader: 'sh other.sh' })).toThrow(/No run of the batch .* was graded by "sh other.sh"/);

    // A batch with no grader of its own shows the latest, and says why.
    const definitionFile = join(copy, '.batch', 'definition.json');
    writeFileSync(definitionFile, JSON.stringify({ ...JSON.parse(readFileSync(definitionFile, 'utf8')), grader: null }));
    const latest = batchReport(copy);
    expect(latest.grader?.hash).toBe(graderHash(second));
    expect(latest.grader_choice).toBe('latest');
    expect(reportText(latest)).toContain('(the latest to grade; the batch has no grader of its own that graded a run; 23 runs graded;');
  });

  it('writes no grade through a link planted beside it, and reports a run whose grades/ is not a directory', async () => {
    const copy = join(await createTempDir(), 'planted');
    cpSync(outA, copy, { recursive: true });
    const runDir = runPaths(join(copy, 't1', 'm-a', '1'), 'run-1').runDir;
    const victim = join(await createTempDir(), 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    // What a tool with the sandbox off could leave: links where a grade's temporary file used to go.
    symlinkSync(victim, join(runDir, 'grade.json.tmp'));
    symlinkSync(victim, join(runDir, 'grades', `${graderHash('true')}.json.tmp`));
    await gradeBatch(copy, { grader: 'true' });
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(JSON.parse(readFileSync(join(runDir, 'grade.json'), 'utf8'))).toMatchObject({ grader: 'true', score: 1 });

    const other = runPaths(join(copy, 't2', 'm-a', '1'), 'run-1').runDir;
    rmSync(join(other, 'grades'), { recursive: true, force: true });
    rmSync(join(other, 'grade.json'), { force: true });
    writeFileSync(join(other, 'grades'), 'not a directory');
    expect(() => batchReport(copy)).not.toThrow();
  });

  it('reads a batch graded before grades were kept per grader (grade.json alone)', async () => {
    const copy = join(await createTempDir(), 'old');
    cpSync(outA, copy, { recursive: true });
    for (const task of readdirSync(copy).filter((name) => name.startsWith('t'))) {
      for (const model of ['m-a', 'm-b'])
        rmSync(join(runPaths(join(copy, task, model, '1'), 'run-1').runDir, 'grades'), { recursive: true, force: true });
    }
    const report = batchReport(copy);
    expect(report.grader).toMatchObject({ hash: graderHash(firstGrader), command: firstGrader });
    expect(report.comparisons[0]!.p_value).toBe(0.021484375);
  });

  it('groups the runs by a task metadata field with --by', () => {
    // writeTasks gives each task metadata.index 0..11.
    const report = batchReport(outA, { by: 'metadata.index' });
    expect(report.groups?.key).toBe('metadata.index');
    expect(report.groups?.groups.map((group) => group.value)).toEqual(Array.from({ length: 12 }, (_, index) => String(index)));
    const t1 = report.groups!.groups[0]!;
    expect(t1.by_model.map((model) => model.score?.mean)).toEqual([1, 0]);
    expect(t1.all.score?.mean).toBe(0.5);
    expect(reportText(report)).toContain('metadata.index = 0 (1 tasks)');
    expect(() => batchReport(outA, { by: 'metadata.' })).toThrow(/names no metadata field/);
  });
});
