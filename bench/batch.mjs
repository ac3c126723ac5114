#!/usr/bin/env node
// The batch figures of issue 20, side by side in one run against the testkit's fake model:
//   1. `delta batch` over 200 tasks (2 tool steps each) at --concurrency 8, in one process;
//   2. the same 200 tasks as 200 sequential `delta run` processes;
//   3. the same as 200 `delta run` processes, 8 at a time (xargs -P8);
//   4. `delta batch` at --concurrency 32: the batch process's peak RSS (VmHWM, lib/report-rss.cjs).
// Targets: (1) at least 10x faster than (2) and 3x faster than (3); (4) under 250 MB.
// Uses the built CLI (run `pnpm build` first). Timings move with the machine's load: it is printed.
//
//   node bench/batch.mjs [--tasks 200]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareTwoStepBatch } from './lib/two-step-batch.mjs';

const { values: flags } = parseArgs({ options: { tasks: { type: 'string', default: '200' } } });
const TASKS = Number(flags.tasks);
const root = fileURLToPath(new URL('..', import.meta.url));
const delta = join(root, 'apps/delta-cli/bin/delta.js');
const reportRss = join(root, 'bench/lib/report-rss.cjs');
const work = join(root, 'bench', '.work', `batch-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const progress = (text) => process.stderr.write(`bench batch: ${text}\n`);

const { llm, agent, tasksFile, env } = await prepareTwoStepBatch({ name: 'bench-batch', work, tasks: TASKS });

/** Runs a command to its end; resolves with its wall time in ms (and fails loudly on a non-zero exit). */
function timed(command, args, extraEnv = {}) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

const node = [process.execPath, '--max-semi-space-size=1'];
const runArgs = (index, base) => [delta, 'run', '--agent', agent, '-w', join(base, `t${index}`), '-m', `task ${index}`, '-q'];

try {
  const load = loadavg()[0];
  progress(`load average ${load.toFixed(2)}; ${TASKS} tasks; warming up...`);
  await timed(node[0], [...node.slice(1), ...runArgs(0, join(work, 'warm'))]);

  progress('delta batch --concurrency 8...');
  const batchMs = await timed(node[0], [
    ...node.slice(1),
    delta,
    'batch',
    tasksFile,
    '--agent',
    agent,
    '--out',
    join(work, 'batch-8'),
    '--concurrency',
    '8',
  ]);

  progress(`${TASKS} sequential delta run processes...`);
  const sequentialStart = performance.now();
  for (let index = 1; index <= TASKS; index += 1) await timed(node[0], [...node.slice(1), ...runArgs(index, join(work, 'sequential'))]);
  const sequentialMs = performance.now() - sequentialStart;

  progress(`${TASKS} delta run processes, 8 at a time (xargs -P8)...`);
  const xargsScript = `seq 1 ${TASKS} | xargs -P8 -I{} ${node.join(' ')} ${delta} run --agent ${agent} -w ${join(work, 'xargs')}/t{} -m "task {}" -q`;
  const xargsMs = await timed('sh', ['-c', xargsScript]);

  progress('delta batch --concurrency 32, peak RSS...');
  const rssFile = join(work, 'rss-32.txt');
  const batch32Ms = await timed(
    node[0],
    [
      ...node.slice(1),
      '--require',
      reportRss,
      delta,
      'batch',
      tasksFile,
      '--agent',
      agent,
      '--out',
      join(work, 'batch-32'),
      '--concurrency',
      '32',
    ],
    { BENCH_RSS_FILE: rssFile },
  );
  const [peakKiB] = readFileSync(rssFile, 'utf8').trim().split(' ').map(Number);
  const peakMB = (peakKiB * 1024) / 1e6;
  const loadAfter = loadavg()[0];

  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const rows = [
    [`delta batch, ${TASKS} tasks, --concurrency 8`, s(batchMs), '', ''],
    [
      `${TASKS} sequential delta run`,
      s(sequentialMs),
      `batch ${(sequentialMs / batchMs).toFixed(1)}x faster`,
      sequentialMs / batchMs >= 10 ? 'ok (>= 10x)' : 'MISSED (>= 10x)',
    ],
    [
      `${TASKS} delta run, xargs -P8`,
      s(xargsMs),
      `batch ${(xargsMs / batchMs).toFixed(1)}x faster`,
      xargsMs / batchMs >= 3 ? 'ok (>= 3x)' : 'MISSED (>= 3x)',
    ],
    [
      `delta batch --concurrency 32: peak RSS`,
      `${peakMB.toFixed(0)} MB`,
      `(${s(batch32Ms)})`,
      peakMB < 250 ? 'ok (< 250 MB)' : 'MISSED (< 250 MB)',
    ],
  ];
  for (const row of rows) process.stdout.write(`${row[0].padEnd(44)} ${row[1].padStart(9)}  ${row[2].padEnd(22)} ${row[3]}\n`);
  process.stdout.write(`load average (1 min): ${load.toFixed(2)} before, ${loadAfter.toFixed(2)} after\n`);
} finally {
  await llm.close();
}
