import { tmpdir } from 'node:os';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listRunIds, readJournal, readMetadata, runPaths } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  type RecordedRequest,
  redisUnavailable,
  startFakeLlm,
  startTestRedis,
  type TestRedis,
  modelEnv,
} from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { type RunningDelta, startDelta } from './test-processes.test-support.js';

// `delta batch --queue` and `delta worker` on a real redis-server (Debian's package) and a real
// BullMQ queue: three worker processes, one of them killed (SIGKILL) in the middle of a run.

const unavailable = redisUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: the scale-out tests (delta worker, --queue) need redis-server: ${unavailable}\n`);

const TASKS = 30;
const BLOCKING_TASK = 'task-15';

function messagesOf(request: RecordedRequest): { role: string; content: unknown }[] {
  return (request.body as { messages: { role: string; content: unknown }[] }).messages;
}

let redis: TestRedis;
let llm: FakeLlm;
const workers: RunningDelta[] = [];
beforeAll(async () => {
  if (unavailable) return;
  redis = await startTestRedis();
  // Each task makes one tool call, then answers. The blocking task's tool call is `block`, which signals
  // that the run is in the middle of a tool and waits to be released.
  llm = await startFakeLlm({
    script: (request) => {
      const messages = messagesOf(request);
      const task = String(messages.find((message) => message.role === 'user')?.content ?? '');
      if (messages.some((message) => message.role === 'tool')) return { content: `done: ${task}` };
      const name = task === `do ${BLOCKING_TASK}` ? 'block' : 'note';
      return { tool_calls: [{ name, arguments: { text: `${task}\n` } }], delay_ms: 30 };
    },
  });
});
afterEach(async () => {
  for (const worker of workers.splice(0))
    if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  await cleanupTempDirs();
});
afterAll(async () => {
  await llm?.close();
  await redis?.stop();
});

async function waitForFile(file: string, timeoutMs: number): Promise<void> {
  await expect
    .poll(() => existsSync(file), { timeout: timeoutMs, interval: 20, message: `${file} did not appear within ${timeoutMs} ms` })
    .toBe(true);
}

/** The pairing of engine starts and ends in a journal, and its seq: one engine at a time, none writing over another. */
function engineSpans(journal: string): { starts: number; ends: number; unfinishedBeforeRestart: number } {
  const events = readJournal(journal);
  events.forEach((event, index) => {
    expect(event.seq, `${journal} seq at line ${index + 1}`).toBe(events[0]!.seq + index);
  });
  let open = false;
  let starts = 0;
  let ends = 0;
  let unfinishedBeforeRestart = 0;
  for (const event of events) {
    if (event.type === 'ENGINE_START') {
      // A start while another engine's start is open: only after that engine died (a crash, resumed).
      if (open) {
        unfinishedBeforeRestart += 1;
        expect((event as { resumed?: boolean }).resumed, `${journal}: a second engine started on an open run`).toBe(true);
      }
      open = true;
      starts += 1;
    } else if (event.type === 'ENGINE_END') {
      expect(open, `${journal}: ENGINE_END without ENGINE_START`).toBe(true);
      open = false;
      ends += 1;
    } else {
      expect(open, `${journal}: ${event.type} written while no engine had started`).toBe(true);
    }
  }
  expect(open, `${journal} ends without ENGINE_END`).toBe(false);
  return { starts, ends, unfinishedBeforeRestart };
}

describe.skipIf(unavailable)('delta batch --queue and delta worker', () => {
  it('runs 30 tasks on 3 workers, one SIGKILLed mid-run: every run COMPLETED once, in one run directory, one engine at a time', async () => {
    const directory = await createTempDir();
    const marks = join(directory, 'marks');
    const blockScript = join(directory, 'block.sh');
    // Signals that the run is mid-tool (the marker holds the workspace), then waits for the release file.
    writeFileSync(blockScript, `pwd > "${marks}.started"\nwhile [ ! -e "${marks}.release" ]; do sleep 0.05; done\necho released\n`);
    const agent = await createTempAgent({
      agentYaml: {
        name: 'scaled',
        llm: { model: 'fake-model', max_retries: 0 },
        // Unsandboxed: the blocked tool outlives its killed engine until the test releases it.
        sandbox: { mode: 'off' },
        tools: [
          { name: 'note', description: 'Append a line to notes.txt', exec: 'tee -a -- notes.txt', stdin: 'text' },
          { name: 'block', description: 'Wait to be released', exec: `sh ${blockScript}`, stdin: 'text' },
        ],
      },
    });
    const tasksFile = join(directory, 'tasks.jsonl');
    const ids = Array.from({ length: TASKS }, (_, index) => `task-${index + 1}`);
    writeFileSync(tasksFile, `${ids.map((id) => JSON.stringify({ id, message: `do ${id}` })).join('\n')}\n`);
    const out = join(directory, 'out');
    const env = modelEnv(llm);

    // Enqueue, and follow the queue until every run has ended.
    const batch = startDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--queue', redis.url, '--wait'], env);
    for (let index = 0; index < 3; index += 1) {
      workers.push(startDelta(['worker', '--queue', redis.url, '--root', tmpdir(), '--concurrency', '2', '--lock-duration', '3'], env));
    }

    // The blocking run is mid-tool: the worker that holds its run lock is the one to kill.
    await waitForFile(`${marks}.started`, 60_000);
    const blockedRun = runPaths(join(out, BLOCKING_TASK, 'fake-model', '1'), 'run-1');
    const holder = JSON.parse(readFileSync(blockedRun.lock, 'utf8')) as { pid: number };
    const victim = workers.find((worker) => worker.child.pid === holder.pid);
    expect(victim, `the lock names pid ${holder.pid}, not one of the workers`).toBeDefined();
    victim!.child.kill('SIGKILL');
    expect((await victim!.done).signal).toBe('SIGKILL');
    writeFileSync(`${marks}.release`, '');

    const finished = await batch.done;
    expect(finished.stderr).toContain(`Enqueued ${TASKS} of ${TASKS} runs in queue delta-out-`);
    expect(finished.stdout).toContain(
      `${TASKS} runs: ${TASKS} completed, 0 failed, 0 interrupted, 0 waiting for input, 0 not finished (0 jobs failed in the queue)`,
    );
    expect(finished.exitCode).toBe(0);

    // Every run COMPLETED, each task in exactly one run directory, each journal one engine at a time.
    const resumed: string[] = [];
    expect(
      readdirSync(out)
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).toEqual([...ids].sort());
    for (const id of ids) {
      const workDir = join(out, id, 'fake-model', '1');
      expect(readdirSync(join(out, id)), id).toEqual(['fake-model']);
      expect(readdirSync(join(out, id, 'fake-model')), id).toEqual(['1']);
      expect(listRunIds(workDir), id).toEqual(['run-1']);
      const paths = runPaths(workDir, 'run-1');
      expect(readMetadata(paths.metadata).status, id).toBe('COMPLETED');
      const spans = engineSpans(paths.journal);
      // A run the killed worker had in flight was started by it and resumed from its journal by another.
      if (spans.starts === 2) resumed.push(id);
      expect(spans, id).toEqual(
        spans.starts === 2 ? { starts: 2, ends: 1, unfinishedBeforeRestart: 1 } : { starts: 1, ends: 1, unfinishedBeforeRestart: 0 },
      );
    }
    // The blocked run, and at most one other (each worker runs two at a time).
    expect(resumed).toContain(BLOCKING_TASK);
    expect(resumed.length).toBeLessThanOrEqual(2);
    const survivors = workers.filter((worker) => worker !== victim);
    for (const worker of survivors) worker.child.kill('SIGTERM');
    const outputs = await Promise.all(survivors.map((worker) => worker.done));
    expect(outputs.map((output) => output.exitCode)).toEqual([130, 130]);
    const lines = outputs.flatMap((output) => output.stdout.split('\n'));
    expect(lines.filter((line) => line.startsWith(`COMPLETED ${BLOCKING_TASK} / fake-model / 1 (continued`))).toHaveLength(1);

    // The report reads the batch as a local one.
    const report = await runDelta(['report', out]);
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toContain('fake-model');
  }, 240_000);

  it('names the URL and how to start a server when Redis is not there', async () => {
    const directory = await createTempDir();
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ id: 'a', message: 'hi' })}\n`);
    const agent = await createTempAgent({ agentYaml: { name: 'q', llm: { model: 'fake-model' }, tools: [] } });
    const nowhere = `redis://127.0.0.1:${redis.port === 1 ? 2 : 1}/0`;
    const worker = await runDelta(['worker', '--queue', nowhere, '--root', tmpdir()]);
    expect(worker.exitCode).toBe(1);
    expect(worker.stderr).toContain(`Cannot reach Redis at ${nowhere}`);
    expect(worker.stderr).toContain('redis-server --port 1');
    const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'out'), '--queue', 'localhost:6379']);
    expect(batch.exitCode).toBe(2);
    expect(batch.stderr).toContain('--queue "localhost:6379" is not a Redis URL');
  });
});
