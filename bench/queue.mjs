#!/usr/bin/env node
// The scale-out figures of issue 22, against the testkit's fake model and a redis-server of its own:
//   1. `delta batch` over N tasks (2 tool steps each) at --concurrency 4, in one process (the local batch);
//   2. the same tasks through `delta batch --queue … --wait` with 1, 2 and 4 `delta worker --concurrency 4`
//      processes on this machine: wall time from enqueue to the last run's end, runs per second;
//   3. per run, for the cost model: Redis commands processed (INFO stats; the workers' and --wait's polling
//      included), and the bytes the queue's keys take once every run has ended (MEMORY USAGE summed over
//      every `bull:*` key: jobs are kept after they complete, with the queue's events stream and sets).
// Uses the built CLI (run `pnpm build` first) and redis-server/redis-cli from PATH. Timings move with the
// machine's load: it is printed.
//
//   node bench/queue.mjs [--tasks 60]
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startTestRedis } from '@delta/testkit';
import { prepareTwoStepBatch } from './lib/two-step-batch.mjs';

const { values: flags } = parseArgs({ options: { tasks: { type: 'string', default: '60' } } });
const TASKS = Number(flags.tasks);
const root = fileURLToPath(new URL('..', import.meta.url));
const delta = join(root, 'apps/delta-cli/bin/delta.js');
const work = join(root, 'bench', '.work', `queue-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const progress = (text) => process.stderr.write(`bench queue: ${text}\n`);

const { llm, agent, tasksFile, env } = await prepareTwoStepBatch({ name: 'bench-queue', work, tasks: TASKS });
const node = [process.execPath, '--max-semi-space-size=1'];

/** Runs `delta ARGS` to its end; resolves with its wall time in ms (and fails loudly on a non-zero exit). */
function timedDelta(args) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(node[0], [...node.slice(1), delta, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`delta ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

function info(port, section, field) {
  const out = spawnSync('redis-cli', ['-p', String(port), 'INFO', section], { encoding: 'utf8' }).stdout;
  const line = out.split('\n').find((entry) => entry.startsWith(`${field}:`));
  return Number(line?.slice(field.length + 1).trim());
}

async function queued(workers) {
  const redis = await startTestRedis();
  const children = [];
  try {
    const commandsBefore = info(redis.port, 'stats', 'total_commands_processed');
    for (let index = 0; index < workers; index += 1) {
      children.push(
        spawn(node[0], [...node.slice(1), delta, 'worker', '--queue', redis.url, '--concurrency', '4'], { env, stdio: 'ignore' }),
      );
    }
    const ms = await timedDelta([
      'batch',
      tasksFile,
      '--agent',
      agent,
      '--out',
      join(work, `queue-${workers}`),
      '--queue',
      redis.url,
      '--wait',
    ]);
    const commands = info(redis.port, 'stats', 'total_commands_processed') - commandsBefore;
    const keys = spawnSync('redis-cli', ['-p', String(redis.port), '--scan', '--pattern', 'bull:*'], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
    const usage = spawnSync('redis-cli', ['-p', String(redis.port)], {
      encoding: 'utf8',
      input: keys.map((key) => `MEMORY USAGE "${key}" SAMPLES 0`).join('\n'),
    }).stdout;
    const bytes = usage
      .split('\n')
      .filter(Boolean)
      .reduce((sum, line) => sum + Number(line), 0);
    return { ms, commandsPerRun: commands / TASKS, bytesPerRun: bytes / TASKS, keys: keys.length };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('close', resolve)))),
    );
    await redis.stop();
  }
}

try {
  const load = loadavg()[0];
  progress(`load average ${load.toFixed(2)}; ${TASKS} tasks; local batch --concurrency 4...`);
  const localMs = await timedDelta(['batch', tasksFile, '--agent', agent, '--out', join(work, 'local'), '--concurrency', '4']);
  const results = [];
  for (const workers of [1, 2, 4]) {
    progress(`${workers} worker(s) --concurrency 4...`);
    results.push({ workers, ...(await queued(workers)) });
  }
  const loadAfter = loadavg()[0];
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const rate = (ms) => `${(TASKS / (ms / 1000)).toFixed(1)} runs/s`;
  process.stdout.write(`${`local delta batch --concurrency 4, ${TASKS} tasks`.padEnd(48)} ${s(localMs).padStart(8)}  ${rate(localMs)}\n`);
  for (const result of results) {
    process.stdout.write(
      `${`queue, ${result.workers} worker(s) x --concurrency 4`.padEnd(48)} ${s(result.ms).padStart(8)}  ${rate(result.ms).padEnd(12)} ${result.commandsPerRun.toFixed(0)} Redis commands/run, ${(result.bytesPerRun / 1024).toFixed(1)} KiB kept/run (${result.keys} keys)\n`,
    );
  }
  process.stdout.write(`load average (1 min): ${load.toFixed(2)} before, ${loadAfter.toFixed(2)} after\n`);
} finally {
  await llm.close();
}
