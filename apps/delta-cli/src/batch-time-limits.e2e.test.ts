// Limits per run (issue 44 item 4): a task's `timeout_sec` is its run's wall time, and the end of it (the run
// is INTERRUPTED with limits_hit ["time"] and never continued by the batch); its `verifier.timeout_sec` bounds
// the grader, whose timeout is a verifier error in the grade. `delta batch --timeout` reaches every run.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTestResources, createTempAgent, createTempDir, modelEnv, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

afterEach(() => cleanupTestResources());

/** Each run: one call of its task's script, then an answer. */
function startModel() {
  return startFakeLlm({
    script: (request) => {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      if (messages.some((message) => message.role === 'tool')) return { content: 'done' };
      const script = messages.findLast((message) => message.role === 'user')!.content;
      return { tool_calls: [{ name: 'sh', arguments: { script } }] };
    },
  });
}

async function setup() {
  const agent = await createTempAgent({
    agentYaml: {
      name: 'timed',
      llm: { model: 'm', max_retries: 0 },
      sandbox: { mode: 'off' },
      tools: [{ name: 'sh', description: 'run a script', exec: 'sh -c ${script}', allow_option_values: true }],
    },
  });
  const directory = await createTempDir('time-limits-');
  return { agent, tasksFile: join(directory, 'tasks.jsonl'), out: join(directory, 'out') };
}

const metadataOf = (out: string, task: string) =>
  JSON.parse(readFileSync(join(out, task, 'm', '1', '.delta', 'run-1', 'metadata.json'), 'utf8'));

describe("a task's time limits", () => {
  it('timeout_sec ends the run for good (limits_hit time); verifier.timeout_sec stops the grader (a verifier error)', async () => {
    const llm = await startModel();
    const { agent, tasksFile, out } = await setup();
    const tasks = [
      { id: 'slow', message: 'sleep 30', timeout_sec: 1.5 },
      { id: 'fast', message: 'true', verifier: { timeout_sec: 1 } },
    ];
    writeFileSync(tasksFile, tasks.map((task) => `${JSON.stringify(task)}\n`).join(''));
    const args = ['batch', tasksFile, '--agent', agent, '--out', out, '--grader', 'sleep 30'];
    const started = Date.now();
    const result = await runDelta(args, { env: modelEnv(llm) });
    expect(Date.now() - started).toBeLessThan(20_000);

    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stdout).toMatch(
      /INTERRUPTED slow \/ m \/ 1 \(started, 1 iteration, \d+ tokens, reached the run's time limit \(1\.5s of wall time\) before the task was complete, limits hit: time\)/,
    );
    expect(result.stdout).toMatch(
      /COMPLETED fast \/ m \/ 1 \(started, 2 iterations, \d+ tokens, grader error: the grader did not finish within 1 s and was stopped\)/,
    );
    expect(result.stdout).toContain('2 runs: 1 completed, 0 failed, 1 ended at a limit, 0 interrupted');
    expect(metadataOf(out, 'slow')).toMatchObject({ status: 'INTERRUPTED', limits_hit: ['time'] });
    const grade = JSON.parse(readFileSync(join(out, 'fast', 'm', '1', '.delta', 'run-1', 'grade.json'), 'utf8'));
    expect(grade).toMatchObject({
      score: null,
      passed: null,
      timed_out: true,
      error: 'the grader did not finish within 1 s and was stopped',
    });

    // The same batch again: the run that ran out of time is over, not continued.
    const again = await runDelta(args, { env: modelEnv(llm) });
    expect(again.exitCode).toBe(1);
    expect(again.stdout).toContain('2 runs: 1 completed, 0 failed, 1 ended at a limit, 0 interrupted, 0 waiting for input (0 executed');
    expect(again.stdout).toContain('Add --retry-failed to run the runs ended at a limit again.');
    const journal = readFileSync(join(out, 'slow', 'm', '1', '.delta', 'run-1', 'journal.jsonl'), 'utf8');
    expect(journal.match(/"type":"ENGINE_START"/g)).toHaveLength(1);
    // The report counts it apart from failures.
    const report = await runDelta(['report', out, '--json']);
    const slow = JSON.parse(report.stdout).by_task.find((group: { name: string }) => group.name === 'slow');
    expect(slow).toMatchObject({ runs: 1, failed: 0, limit_hits: 1 });

    // --retry-failed tries it again, as a failed run: a new run (run-2) in the reset workspace.
    const retried = await runDelta([...args, '--retry-failed'], { env: modelEnv(llm) });
    expect(retried.stdout).toMatch(/INTERRUPTED slow \/ m \/ 1 \(retried, 1 iteration, .*limits hit: time\)/);
    expect(retried.stdout).toContain('(1 executed');
    const second = JSON.parse(readFileSync(join(out, 'slow', 'm', '1', '.delta', 'run-2', 'metadata.json'), 'utf8'));
    expect(second).toMatchObject({ status: 'INTERRUPTED', limits_hit: ['time'] });
  }, 90_000);

  it('delta batch --timeout stops each run of the batch, which the batch continues when run again', async () => {
    const llm = await startModel();
    const { agent, tasksFile, out } = await setup();
    writeFileSync(tasksFile, `${JSON.stringify({ id: 'slow', message: 'sleep 30' })}\n`);
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--timeout', '1s'], { env: modelEnv(llm) });
    expect(result.exitCode, result.stderr).toBe(3);
    expect(result.stdout).toContain('reached the time limit (--timeout 1s) before the task was complete');
    expect(metadataOf(out, 'slow').limits_hit).toBeUndefined();
    // An invocation's limit, not the run's: the batch run again continues it.
    const again = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env: modelEnv(llm) });
    expect(again.stdout, again.stderr).toMatch(/COMPLETED slow \/ m \/ 1 \(continued/);
  }, 60_000);
});
