import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import { cleanupTempDirs, type RecordedRequest } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jsonEvents, runDirectory, setup, startBatch, startLlm, stopLlm, toolResults, userText } from './batch.test-support.js';

/** Called with each request the server answers, which waits for what it returns; a test uses it to choose a moment of the batch. */
let onRequest: (request: RecordedRequest) => void | Promise<void> = () => {};
beforeAll(() => startLlm((request) => onRequest(request)));
afterEach(async () => {
  onRequest = () => {};
  await cleanupTempDirs();
});
afterAll(stopLlm);

describe('delta batch', () => {
  it('killed with SIGKILL in the middle, the same command again finishes every run and executes no completed run twice', async () => {
    const { agent, tasksFile, out, env } = await setup(8);
    const args = [tasksFile, '--agent', agent, '--out', out, '--concurrency', '2', '--json'];
    // The moment to kill, chosen by signals, not a clock: two runs have ended COMPLETED (the batch's run_end
    // lines say so), and both runs going wait on the model (their requests are held here), one of them
    // between its two tool calls. No tool call is in flight then: a kill inside one would leave that call
    // unrun (the resumed run says so to the model, which, scripted, goes on to step 2), which is not what
    // this test is about. Under load that happened: task-4's notes.txt held only `step 2`.
    const first = startBatch(args, env);
    let completed = 0;
    let lines = '';
    first.child.stdout.on('data', (chunk: Buffer) => {
      lines += chunk.toString('utf8');
      const whole = lines.slice(0, lines.lastIndexOf('\n') + 1);
      completed = jsonEvents(whole).filter((event) => event.type === 'run_end' && event.status === 'COMPLETED').length;
    });
    const held: Array<{ request: RecordedRequest; release: () => void }> = [];
    const quiet = new Promise<void>((resolve) => {
      const settle = () => {
        // Concurrency 2: two held requests are every run going, each waiting on the model.
        if (held.length < 2) return;
        if (held.some(({ request }) => toolResults(request) === 1)) return resolve();
        held.shift()!.release(); // let one take a step: it comes back between its tool calls
      };
      onRequest = (request) => {
        if (completed < 2) return;
        return new Promise<void>((release) => {
          held.push({ request, release });
          settle();
        });
      };
    });
    await quiet;
    first.child.kill('SIGKILL');
    const killed = await first.exited;
    expect(killed.signal).toBe('SIGKILL');
    onRequest = () => {};
    for (const { release } of held) release(); // answers to a batch that is gone
    const heldTasks = held.map(({ request }) => JSON.parse(userText(request)) as string);

    const tasks = Array.from({ length: 8 }, (_, index) => `task-${index + 1}`);
    const completedBefore = new Map<string, string>();
    const unfinished: string[] = [];
    for (const task of tasks) {
      const workDir = runDirectory(out, task);
      const runId = existsSync(workDir) ? readLatestRunId(workDir) : undefined;
      if (!runId || !existsSync(runPaths(workDir, runId).journal)) continue;
      const journal = readFileSync(runPaths(workDir, runId).journal, 'utf8');
      if (journal.includes('"status":"COMPLETED"')) completedBefore.set(task, journal);
      else unfinished.push(task);
    }
    expect(completedBefore.size).toBeGreaterThanOrEqual(2);
    expect(completedBefore.size).toBeLessThan(8);
    // Exactly the two runs whose requests were held, each with a step behind it or before it.
    expect(unfinished.map((task) => `do ${task.slice('task-'.length)}`).sort()).toEqual(heldTasks.sort());

    const second = startBatch(args, env);
    const rerun = await second.exited;
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    const ends = jsonEvents(rerun.stdout).filter((event) => event.type === 'run_end');
    expect(ends).toHaveLength(8);
    for (const end of ends) {
      const task = (end.key as { task: string }).task;
      expect(end.status, task).toBe('COMPLETED');
      expect(end.action, task).toBe(completedBefore.has(task) ? 'skipped' : unfinished.includes(task) ? 'continued' : 'started');
    }
    for (const task of tasks) {
      const paths = runPaths(runDirectory(out, task), 'run-1');
      expect(readMetadata(paths.metadata).status, task).toBe('COMPLETED');
      const journal = readFileSync(paths.journal, 'utf8');
      // A completed run is not touched again: its journal is byte for byte what it was.
      if (completedBefore.has(task)) expect(journal, task).toBe(completedBefore.get(task));
      const starts = readJournal(paths.journal).filter((event) => event.type === 'ENGINE_START').length;
      expect(starts, task).toBe(unfinished.includes(task) ? 2 : 1);
      // Two tool calls, each run once, across the kill.
      expect(readFileSync(join(runDirectory(out, task), 'notes.txt'), 'utf8'), task).toBe('step 1\nstep 2\n');
    }
  });

  it('Ctrl-C (SIGINT) leaves every started run INTERRUPTED and resumable', async () => {
    const { agent, tasksFile, out, env } = await setup(6);
    const args = [tasksFile, '--agent', agent, '--out', out, '--concurrency', '3', '--json'];
    const inFlight = new Promise<void>((resolve) => {
      onRequest = (request) => {
        if (toolResults(request) === 1) resolve();
      };
    });
    const first = startBatch(args, env);
    await inFlight;
    first.child.kill('SIGINT');
    const stopped = await first.exited;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('SIGINT received: stopping the batch (send it again to exit at once)');
    const statuses = ['task-1', 'task-2', 'task-3', 'task-4', 'task-5', 'task-6']
      .map((task) => runDirectory(out, task))
      .filter((workDir) => existsSync(workDir))
      .map((workDir) => readMetadata(runPaths(workDir, 'run-1').metadata).status);
    expect(statuses.length).toBeGreaterThanOrEqual(1);
    expect(statuses).toContain('INTERRUPTED');
    expect(statuses.every((status) => status === 'INTERRUPTED' || status === 'COMPLETED')).toBe(true);
    expect(jsonEvents(stopped.stdout).at(-1)).toMatchObject({ type: 'batch_end', stopped: true });

    const again = await startBatch(args, env).exited;
    expect(again.code).toBe(0);
    expect(jsonEvents(again.stdout).at(-1)).toMatchObject({ type: 'batch_end', completed: 6, stopped: false });
  });
});
