import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPaths } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  modelEnv,
  redisUnavailable,
  startFakeLlm,
  startTestRedis,
  type TestRedis,
} from '@delta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELTA_BIN, deltaEnv } from './test-support.js';

// A killed `delta worker`'s run is taken over by another worker within the documented --lock-duration:
// real redis-server, real BullMQ, two real workers, one SIGKILLed while its run is in the middle of a tool.

const unavailable = redisUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: the worker takeover test needs redis-server: ${unavailable}\n`);

const LOCK_SECONDS = 6;

let redis: TestRedis;
let llm: FakeLlm;
beforeAll(async () => {
  if (unavailable) return;
  redis = await startTestRedis();
  llm = await startFakeLlm({
    script: (request) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      return messages.some((message) => message.role === 'tool') ? { content: 'done' } : { tool_calls: [{ name: 'block', arguments: {} }] };
    },
  });
});
afterAll(async () => {
  await llm?.close();
  await redis?.stop();
  await cleanupTempDirs();
});

/** A `delta worker` whose stderr lines are watched: `line(test)` resolves with the first line that passes, and when. */
function startWorker(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [DELTA_BIN, 'worker', '--queue', redis.url, '--root', tmpdir(), '--lock-duration', String(LOCK_SECONDS)],
    {
      env: deltaEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const waiting: { test: (line: string) => boolean; resolve: (found: { line: string; at: number }) => void }[] = [];
  // What it says on stderr (runs started, queues served) and on stdout (runs ended), as one text.
  const hear = (chunk: Buffer) => {
    const at = performance.now();
    stderr += chunk.toString('utf8');
    for (const line of chunk.toString('utf8').split('\n')) {
      for (const wait of waiting.filter((candidate) => candidate.test(line))) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve({ line, at });
      }
    }
  };
  child.stderr.on('data', hear);
  child.stdout.on('data', hear);
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('close', (code, signal) => resolve(signal ?? code)));
  const line = (test: (line: string) => boolean) =>
    new Promise<{ line: string; at: number }>((resolve) => {
      const seen = stderr.split('\n').find(test);
      if (seen !== undefined) resolve({ line: seen, at: performance.now() });
      else waiting.push({ test, resolve });
    });
  return { child, exited, line, stderr: () => stderr };
}

describe.skipIf(unavailable)('delta worker takeover', () => {
  it(`hands a SIGKILLed worker's run to another worker within --lock-duration (${LOCK_SECONDS} s)`, async () => {
    const directory = await createTempDir();
    const marks = join(directory, 'marks');
    const agent = await createTempAgent({
      agentYaml: {
        name: 'taken-over',
        llm: { model: 'fake-model', max_retries: 0 },
        // Unsandboxed, as in scale-out.e2e: the tool in flight outlives its killed engine until released.
        sandbox: { mode: 'off' },
        tools: [
          {
            name: 'block',
            description: 'Wait to be released',
            shell: `touch "${marks}.started"; while [ ! -e "${marks}.release" ]; do sleep 0.05; done; echo released`,
          },
        ],
      },
    });
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ id: 'held', message: 'hold on' })}\n`);
    const out = join(directory, 'out');
    const env = modelEnv(llm);
    const enqueue = spawn(process.execPath, [DELTA_BIN, 'batch', tasksFile, '--agent', agent, '--out', out, '--queue', redis.url], {
      env: deltaEnv(env),
      stdio: 'ignore',
    });
    expect(await new Promise((resolve) => enqueue.on('close', resolve))).toBe(0);

    const first = startWorker(env);
    await first.line((line) => line.includes('start held / fake-model / 1'));
    // The second worker serves the queue too, idle: the stalled job is its to take.
    const second = startWorker(env);
    await second.line((line) => line.includes('serving queue delta-out-'));
    await new Promise<void>((resolve) => {
      const check = () => (existsSync(`${marks}.started`) ? resolve() : setTimeout(check, 20));
      check();
    });
    const holder = JSON.parse(readFileSync(runPaths(join(out, 'held', 'fake-model', '1'), 'run-1').lock, 'utf8')) as { pid: number };
    expect(holder.pid).toBe(first.child.pid);

    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const killedAt = performance.now();
    writeFileSync(`${marks}.release`, '');
    const taken = await second.line((line) => line.includes('start held / fake-model / 1'));
    const seconds = (taken.at - killedAt) / 1000;
    console.log(`takeover after ${seconds.toFixed(1)} s (--lock-duration ${LOCK_SECONDS})`);
    expect(seconds).toBeLessThanOrEqual(LOCK_SECONDS);

    // The run goes on under the second worker, from its journal, to its end.
    expect((await second.line((line) => line.startsWith('COMPLETED held / fake-model / 1'))).line).toContain('(continued');
    second.child.kill('SIGTERM');
    await second.exited;
  }, 120_000);
});
