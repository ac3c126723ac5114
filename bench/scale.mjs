#!/usr/bin/env node
// The scale figures of issue 34, ours beside the OpenAI Agents SDK for JS (installed on first use into
// bench/.peers/, lib/agents-sdk.mjs) on the same fake model (the testkit's), same tasks, same tool-call
// sequence, same concurrency, in one run:
//   1. 64 tasks x 2 tool steps, model answering at once, 16 at a time: `delta batch --concurrency 16` in
//      the default sandbox vs the SDK (one process, a pool of 16). Target: ours <= SDK.
//   2. --runs (256) runs at once, the model answering after 2 s, 4 calls each (ideal 8 s): wall time
//      (target: ours within 1.5x ideal) and peak process-tree memory (lib/tree-memory.mjs; target ours <= 2x SDK).
//   3. The marginal cost of one more step in one run, sandbox on: (wall of 300 steps - wall of 50) / 250,
//      `delta run` vs the SDK. Target: SDK >= 3x ours.
//   4. `delta replay --tools recorded` of a 1,000-iteration recorded run. Target: under 2 s.
// Each figure is measured --rounds times, the engines alternating which goes first; every measurement is
// printed with the load average, then the medians and the ratios against the targets.
//
//   node bench/scale.mjs [--rounds 3] [--runs 256] [--only 1,2,3,4] [--skip-build]
//
// --skip-build measures the CLI `pnpm build` made (apps/delta-cli/bin/delta.js); otherwise it is bundled
// from the sources first, as bench/run.mjs does (lib/build.mjs).
import { setMaxListeners } from 'node:events';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { probeBubblewrap } from '../packages/command-runner/dist/index.js';
import { ensureAgentsSdk } from './lib/agents-sdk.mjs';
import { deltaBin, root } from './lib/processes.mjs';
import { recordRun, replayRecorded } from './lib/recorded-run.mjs';
import { outDir, oursBatch, oursRun, sdkBatch, sdkRun } from './lib/scale-figures.mjs';
import { median } from './lib/stats.mjs';
import { formatTable } from './lib/table.mjs';
import { prepareTwoStepBatch } from './lib/two-step-batch.mjs';
import { useProjectWorkDir } from './lib/work-dir.mjs';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string', default: '256' },
    only: { type: 'string', default: '1,2,3,4' },
    'skip-build': { type: 'boolean' },
  },
});
const rounds = Number(flags.rounds);
const runs = Number(flags.runs);
const only = new Set(flags.only.split(',').map((figure) => figure.trim()));
const progress = (text) => process.stderr.write(`bench scale: ${text}\n`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

// The fake model waits out each delay on one abort signal (its close): hundreds at once are expected here.
setMaxListeners(runs + 64);
const probe = probeBubblewrap();
if (!probe.ok) {
  console.error(`bubblewrap is not usable here, and every figure is of the default sandbox: ${probe.problem}`);
  process.exit(1);
}
const work = await useProjectWorkDir(progress);
let bin = join(root, 'apps/delta-cli/bin/delta.js');
if (!flags['skip-build']) {
  const { buildForBench } = await import('./lib/build.mjs');
  buildForBench(progress);
  bin = deltaBin;
}
const sdkMissing = ensureAgentsSdk(progress);
if (sdkMissing) console.error(`\n*** SKIPPING the OpenAI Agents SDK: its install failed; missing ${sdkMissing} ***\n`);
const engines = sdkMissing ? ['ours'] : ['ours', 'sdk'];
console.log(`load average at start: ${load()}; ${rounds} rounds; delta: ${bin}; work: ${work.dir}`);

/** Every measurement: `${figure} ${engine}` -> [{ value, load }]. */
const measured = new Map();
function record(figure, engine, round, value, unit, detail = '') {
  const key = `${figure}\t${engine}`;
  const entry = { value, load: loadavg()[0] };
  measured.set(key, [...(measured.get(key) ?? []), entry]);
  console.log(`round ${round}, figure ${figure}, ${engine}: ${value.toFixed(unit === 'ms' ? 2 : 1)} ${unit}${detail}; load ${load()}`);
}
const orderOf = (round) => (round % 2 === 1 ? engines : [...engines].reverse());
const mb = (bytes) => bytes / 1e6;
const treeDetail = (tree) =>
  ` (${tree.peak.processes} processes at the peak, at most ${tree.mostProcesses}; anonymous ${mb(tree.peak.anonymousBytes).toFixed(0)} MB + binaries ${tree.peak.binaries
    .map((binary) => `${binary.name} ${(binary.kib / 1000).toFixed(0)}`)
    .join(', ')} MB; ${tree.samples} samples of ${tree.meanSampleMs.toFixed(0)} ms, ${(tree.cpuMs / 1000).toFixed(1)} s of CPU in all)`;

if (only.has('1')) {
  const batch = await prepareTwoStepBatch({ name: 'bench-scale-1', work: join(work.dir, 'figure-1'), tasks: 64 });
  try {
    progress('figure 1: warming up each engine (4 tasks, not measured)...');
    const warm = await prepareTwoStepBatch({ name: 'bench-scale-warm', work: join(work.dir, 'warm'), tasks: 4 });
    await oursBatch({ bin, batch: warm, concurrency: 4, steps: 2, out: join(work.dir, 'warm', 'out') });
    if (!sdkMissing) await sdkBatch({ batch: warm, concurrency: 4, steps: 2 });
    await warm.llm.close();
    for (let round = 1; round <= rounds; round += 1) {
      for (const engine of orderOf(round)) {
        progress(`figure 1, round ${round}: ${engine}, 64 tasks x 2 tool steps, 16 at a time...`);
        const result =
          engine === 'ours'
            ? await oursBatch({ bin, batch, concurrency: 16, steps: 2, out: outDir(work.dir, 1, engine, round) })
            : await sdkBatch({ batch, concurrency: 16, steps: 2 });
        record('1 wall', engine, round, result.wallMs / 1000, 's');
      }
    }
  } finally {
    await batch.llm.close();
  }
}

if (only.has('2')) {
  const batch = await prepareTwoStepBatch({
    name: 'bench-scale-2',
    work: join(work.dir, 'figure-2'),
    tasks: runs,
    steps: 3,
    delayMs: 2000,
  });
  try {
    for (let round = 1; round <= rounds; round += 1) {
      for (const engine of orderOf(round)) {
        progress(`figure 2, round ${round}: ${engine}, ${runs} runs at once, the model answering after 2 s...`);
        const options = { batch, concurrency: runs, steps: 3, memory: true };
        const result =
          engine === 'ours' ? await oursBatch({ bin, ...options, out: outDir(work.dir, 2, engine, round) }) : await sdkBatch(options);
        record('2 wall', engine, round, result.wallMs / 1000, 's');
        record('2 memory', engine, round, mb(result.tree.peak.bytes), 'MB', treeDetail(result.tree));
      }
    }
  } finally {
    await batch.llm.close();
  }
}

if (only.has('3')) {
  for (let round = 1; round <= rounds; round += 1) {
    for (const engine of orderOf(round)) {
      progress(`figure 3, round ${round}: ${engine}, one run of 50 steps, then one of 300...`);
      const measure = engine === 'ours' ? (steps) => oursRun({ bin, steps }) : (steps) => sdkRun({ steps });
      const short = await measure(50);
      const long = await measure(300);
      const marginal = (long.wallMs - short.wallMs) / 250;
      const walls = ` (50 steps ${(short.wallMs / 1000).toFixed(2)} s, 300 steps ${(long.wallMs / 1000).toFixed(2)} s)`;
      record('3 per step', engine, round, marginal, 'ms', walls);
    }
  }
}

if (only.has('4')) {
  progress('figure 4: recording a 1,000-iteration run (not measured)...');
  const replays = join(work.dir, 'figure-4');
  mkdirSync(replays, { recursive: true });
  const recorded = recordRun({ work: replays, iterations: 1000, delta: bin });
  for (let round = 1; round <= rounds; round += 1) {
    const replay = replayRecorded({ recorded, into: join(replays, `replay-${round}`), delta: bin });
    if (replay.status !== 0 || !replay.summary?.identical)
      throw new Error(`delta replay exited ${replay.status}: ${replay.output.slice(-2000)}`);
    const detail = ` (CPU ${(replay.cpuMs / 1000).toFixed(2)} s, peak RSS ${Math.round(replay.peakKiB / 1024)} MiB, identical, ${replay.summary.iterations} model calls)`;
    record('4 replay', 'ours', round, replay.wallMs / 1000, 's', detail);
  }
}

const stat = (figure, engine) => {
  const entries = measured.get(`${figure}\t${engine}`) ?? [];
  const values = entries.map((entry) => entry.value);
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    loads: entries.map((entry) => entry.load.toFixed(1)),
  };
};
const units = { '1 wall': 's', '2 wall': 's', '2 memory': 'MB', '3 per step': 'ms', '4 replay': 's' };
const digits = (unit) => (unit === 'MB' ? 0 : unit === 'ms' ? 2 : 2);
const rows = [];
for (const [key] of measured) {
  const [figure, engine] = key.split('\t');
  const { median: value, min, max, loads } = stat(figure, engine);
  const unit = units[figure];
  const n = (number) => number.toFixed(digits(unit));
  rows.push([engine === 'sdk' ? 'Agents SDK' : 'delta', figure, `${n(value)} ${unit}`, `${n(min)}–${n(max)}`, loads.join(' ')]);
}
console.log(`\nmedians of ${rounds} rounds; load average at the end: ${load()}`);
console.log(formatTable(['engine', 'figure', 'median', 'min–max', 'load (1 min) per round'], rows));

const m = (figure, engine) => stat(figure, engine).median;
const verdict = (ok) => (ok ? 'meets' : 'misses');
const targets = [];
const skipped = sdkMissing ? 'n/a (Agents SDK skipped)' : undefined;
if (only.has('1')) {
  const ratio = m('1 wall', 'ours') / m('1 wall', 'sdk');
  targets.push(['1: 64 x 2 steps, wall, ours / SDK', skipped ?? `${ratio.toFixed(2)}x`, '<= 1', skipped ? 'n/a' : verdict(ratio <= 1)]);
}
if (only.has('2')) {
  const ratio = m('2 wall', 'ours') / 8;
  targets.push([`2: ${runs} at once, wall, ours / ideal 8 s`, `${ratio.toFixed(2)}x`, '<= 1.5', verdict(ratio <= 1.5)]);
  const memory = m('2 memory', 'ours') / m('2 memory', 'sdk');
  targets.push([
    `2: ${runs} at once, memory, ours / SDK`,
    skipped ?? `${memory.toFixed(2)}x`,
    '<= 2',
    skipped ? 'n/a' : verdict(memory <= 2),
  ]);
}
if (only.has('3')) {
  const ratio = m('3 per step', 'sdk') / m('3 per step', 'ours');
  targets.push(['3: per step, SDK / ours', skipped ?? `${ratio.toFixed(2)}x`, '>= 3', skipped ? 'n/a' : verdict(ratio >= 3)]);
}
if (only.has('4'))
  targets.push(['4: replay of 1,000 iterations', `${m('4 replay', 'ours').toFixed(2)} s`, '< 2 s', verdict(m('4 replay', 'ours') < 2)]);
console.log(`\n${formatTable(['target', 'measured', 'target', ''], targets)}`);
console.log(`file create at start ${work.fileCreateMs.project.toFixed(3)} ms, at the end ${work.fileCreateMsNow().toFixed(3)} ms`);
work.cleanup();
