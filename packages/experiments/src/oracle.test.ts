// The oracle (issue 44 item 3): each task's solution/solve.sh runs as the run's one tool call, in the task's
// image under the run's own layer, then the verifier in that final environment. The task whose solution
// fails is found; a task with no solution is said to have none. No model, no key. Real bubblewrap and umoci.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listLayerChanges } from '@delta/command-runner';
import { readJournal, runPaths } from '@delta/journal';
import { cleanupTestResources, createTempAgent, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { imageToolsMissing } from '../../images/src/image.test-support.js';
import { batchReport, runOracle } from './index.js';
import { oracleFixture } from './oracle.test-support.js';

const noBubblewrap = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the oracle tests: ${noBubblewrap}.\n!!!!!!!!\n`);

afterEach(cleanupTestResources);

describe.skipIf(skip !== undefined)('runOracle', () => {
  it("runs each task's solution in its image, then its verifier, and finds the task whose solution fails", async () => {
    const base = await createTempDir('oracle-');
    const { tasks, imageMap } = oracleFixture(base);
    const agent = await createTempAgent({ agentYaml: { name: 'agent', llm: { model: 'm' } } });
    const out = join(base, 'out');
    const seen: string[] = [];
    // No key and no endpoint: the oracle asks no model.
    const summary = await runOracle({
      tasksFile: tasks,
      agent,
      out,
      imageMap,
      imageCache: join(base, 'cache'),
      environment: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      onVerdict: (verdict) => seen.push(`${verdict.task} ${verdict.verdict}`),
    });
    expect(summary).toMatchObject({ verifier: 'bash /tests/test.sh', passed: 2, failed: 1, noOracle: 1, notRun: 0 });
    expect(seen.sort()).toEqual(['broken failed', 'fix-state passed', 'no-solution no-oracle', 'write-file passed']);

    const broken = summary.verdicts.find((verdict) => verdict.task === 'broken')!;
    expect(broken).toMatchObject({ verdict: 'failed', score: 0, passed: false, solve_exit_code: 3, status: 'COMPLETED' });
    expect(broken.reason).toBe('verifier: score 0 (not passed); solve.sh exited with code 3');
    expect(readFileSync(join(broken.solve_logs!, 'stderr.log'), 'utf8')).toBe('the solution cannot find its tool\n');
    expect(summary.verdicts.find((verdict) => verdict.task === 'no-solution')).toMatchObject({
      verdict: 'no-oracle',
      run_id: null,
      reason: 'the task has no solution (solution/solve.sh)',
    });

    // The oracle's run is an ordinary run: solve.sh ran in the image, in its workdir, its change in the run's layer.
    const fixed = runPaths(join(out, 'fix-state', 'oracle', '1'), 'run-1');
    const result = readJournal(fixed.journal).find((event) => event.type === 'ACTION_RESULT');
    expect(result).toMatchObject({
      tool_name: 'solve',
      exit_code: 0,
      observation_content: expect.stringContaining('solving in /workspace'),
    });
    expect(listLayerChanges(join(fixed.runDir, 'layer')).changes).toEqual([{ path: '/app/state', change: 'written' }]);
    const grade = JSON.parse(readFileSync(join(fixed.runDir, 'grade.json'), 'utf8'));
    expect(grade).toMatchObject({ grader: 'bash /tests/test.sh', score: 1, passed: true, ran_in: 'image' });
    expect(readFileSync(join(out, 'write-file', 'oracle', '1', 'hello.txt'), 'utf8')).toBe('hello\n');

    // The report of the batch lists the oracle's verdicts and leaves the broken task out of the pass rates.
    const report = batchReport(out);
    expect(report.oracle).toMatchObject({ verifier: 'bash /tests/test.sh', left_out: ['broken'], no_oracle: ['no-solution'] });
    expect(report.by_task.map((group) => group.name)).toEqual(['fix-state', 'no-solution', 'write-file']);

    // The same command again runs nothing: the verdicts are read from the runs.
    const again = await runOracle({ tasksFile: tasks, agent, out, imageMap, imageCache: join(base, 'cache') });
    expect(again.verdicts).toEqual(summary.verdicts);
  }, 180_000);
});
