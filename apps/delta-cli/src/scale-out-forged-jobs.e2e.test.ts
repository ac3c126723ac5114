import { tmpdir } from 'node:os';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMetadata, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempAgent, createTempDir, redisUnavailable, startFakeLlm, startTestRedis, modelEnv } from '@delta/testkit';
import { Queue } from 'bullmq';
import { connectRedis, parseRedisAddress } from '@delta/queue';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningDelta, startDelta } from './test-processes.test-support.js';

// Whoever can write to the batch's Redis can add jobs to its queue. A worker runs only the jobs that match
// the batch recorded on the shared storage (its out, tasks, models and repeats) and that are signed with
// the batch's key (kept in OUT/.batch, never in Redis); any other is refused, said, and never retried.

const unavailable = redisUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: the forged-job test needs redis-server: ${unavailable}\n`);

const PASSWORD = 's3cret-Pa55';
const running: RunningDelta[] = [];
afterEach(async () => {
  for (const process of running.splice(0))
    if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGKILL');
  await cleanupTempDirs();
});

describe.skipIf(unavailable)('forged jobs in a batch queue', () => {
  it('are refused and reported (another out, repeat 77, an unknown task, no signature) while every real run COMPLETES', async () => {
    const redis = await startTestRedis({ password: PASSWORD });
    const llm = await startFakeLlm({ script: () => ({ content: 'done' }) });
    try {
      const directory = await createTempDir();
      const agent = await createTempAgent({ agentYaml: { name: 'q', llm: { model: 'fake-model', max_retries: 0 }, tools: [] } });
      const tasksFile = join(directory, 'tasks.jsonl');
      writeFileSync(tasksFile, `${['t1', 't2'].map((id) => JSON.stringify({ id, message: `do ${id}` })).join('\n')}\n`);
      const out = join(directory, 'out');
      // The directory a forged job points at: nothing may ever be written there.
      const forgedOut = join(directory, 'forged-out');
      mkdirSync(forgedOut);
      const env = modelEnv(llm);

      const batch = startDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--repeat', '2', '--queue', redis.url, '--wait'], env);
      running.push(batch);
      let batchStderr = '';
      batch.child.stderr!.on('data', (chunk) => (batchStderr += chunk));
      await expect
        .poll(() => batchStderr.includes('Enqueued 4 of 4 runs'), { timeout: 90_000, interval: 25, message: 'the enqueueing' })
        .toBe(true);
      const queueName = /in queue (\S+) at/.exec(batchStderr)![1]!;

      // The attacker: a copy of a real job, changed, put at the head of the queue (LIFO) so that it is taken first.
      const connection = await connectRedis(parseRedisAddress(redis.url));
      const queue = new Queue(queueName, { connection });
      const real = (await queue.getJob('t1/fake-model/1'))!.data as Record<string, unknown>;
      const { signature: _, ...unsigned } = real;
      const forged: Record<string, Record<string, unknown>> = {
        'forged-unsigned': { ...unsigned, task: 't2' },
        'forged-task': { ...real, task: 'nope' },
        'forged-repeat': { ...real, repeat: 77 },
        'forged-out': { ...real, out: forgedOut },
      };
      for (const [jobId, data] of Object.entries(forged)) await queue.add('run', data, { jobId, lifo: true, attempts: 5, backoff: 100 });

      const worker = startDelta(['worker', '--queue', redis.url, '--root', tmpdir()], env);
      running.push(worker);
      let workerStderr = '';
      worker.child.stderr!.on('data', (chunk) => (workerStderr += chunk));
      // Before the fix the forged `out` made the worker give up the whole batch: then the test ends at once.
      const ended = await Promise.race([
        batch.done.then(() => 'batch ended'),
        expect
          .poll(() => workerStderr.includes('refusing the batch'), { timeout: 90_000, interval: 25, message: 'a refusal' })
          .toBe(true)
          .then(() => 'worker gave up the batch'),
      ]);
      expect(ended, workerStderr).toBe('batch ended');
      const finished = await batch.done;

      // Every real run COMPLETED, once, where the batch keeps it.
      for (const task of ['t1', 't2'])
        for (const repeat of ['1', '2'])
          expect(readMetadata(runPaths(join(out, task, 'fake-model', repeat), 'run-1').metadata).status, `${task}/${repeat}`).toBe(
            'COMPLETED',
          );
      expect(finished.stdout).toContain('4 runs: 4 completed, 0 failed, 0 interrupted, 0 waiting for input, 0 not finished');
      expect(finished.exitCode).toBe(0);
      // Nothing at the forged out, no run outside the batch's repeats or tasks.
      expect(readdirSync(forgedOut)).toEqual([]);
      expect(existsSync(join(out, 't1', 'fake-model', '77'))).toBe(false);
      expect(existsSync(join(out, 'nope'))).toBe(false);

      // Each forged job failed at its first attempt (no retry), its reason naming the mismatch.
      const reasons: Record<string, string> = {};
      for (const jobId of Object.keys(forged)) {
        const job = (await queue.getJob(jobId))!;
        expect(await job.getState(), jobId).toBe('failed');
        expect(job.attemptsMade, jobId).toBe(1);
        reasons[jobId] = job.failedReason;
      }
      expect(reasons['forged-out']).toContain(`out is ${forgedOut}`);
      expect(reasons['forged-repeat']).toContain('repeat 77 is not one of the batch');
      expect(reasons['forged-task']).toContain('task "nope" is not a task of the batch');
      expect(reasons['forged-unsigned']).toContain('no signature');
      // The worker says so, job by job; the batch's --wait reports them apart from its runs.
      worker.child.kill('SIGTERM');
      const stopped = await worker.done;
      for (const jobId of Object.keys(forged)) {
        expect(stopped.stderr).toContain(`refused job ${jobId} of ${queueName}: `);
        expect(finished.stderr).toContain(`REFUSED JOB ${jobId}: `);
      }
      expect(stopped.stderr).not.toContain('refusing the batch');
      // The password is in the URL given to both commands, and in nothing they printed.
      for (const text of [finished.stdout, finished.stderr, stopped.stdout, stopped.stderr]) expect(text).not.toContain(PASSWORD);
      // Nor in any file of the batch: runs' journals, metadata, logs, the batch's own records.
      for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const file = join(entry.parentPath, entry.name);
        expect(readFileSync(file, 'utf8'), file).not.toContain(PASSWORD);
      }
      await queue.close();
      connection.disconnect();
    } finally {
      await llm.close();
      await redis.stop();
    }
  }, 180_000);
});
