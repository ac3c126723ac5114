#!/usr/bin/env node
// The figures of issue 43's benchmark: runs in an OCI image (sandbox.image) against runs with no image, in
// the default sandbox, on the machine as it is (the load average is printed with every measurement):
//   1. An image of Debian packages (> 100 MB), built with no daemon (lib/debian-image.mjs), kept in
//      bench/.images/ so that a rerun skips it; and the same with a 1 GiB layer more.
//   2. --runs (256) runs at once over it, each writing 1 MB outside its workspace (so into its layer),
//      against the same batch with no image (writing 1 MB into its private /tmp): wall time, disk added
//      per run (OUT and each run's layer, allocated bytes) and the peak memory of the process tree.
//   3. Time to the first tool call of one `delta run` in the image (already unpacked) and with none.
//   4. The per-run copy the peers make (`cp -a` of the unpacked root per run, all at once) at 16 and at
//      --runs runs, against our batch of as many runs in the image: time and disk.
//   5. The first unpack of the image and of the 1 GiB one, in a process of its own: time and peak RSS.
// Variants alternate which goes first, round by round; the medians are printed at the end.
//
//   node bench/environments.mjs [--rounds 3] [--runs 256] [--starts 15] [--big-copy-rounds 1] [--only 2,3,4,5] [--skip-build]
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { probeBubblewrap } from '../packages/command-runner/dist/index.js';
import { ensureDebianImages, imagesDir } from './lib/debian-image.mjs';
import {
  batchFigure,
  copyFigure,
  firstToolCall,
  imageRoot,
  startOneStepModel,
  unpackFigure,
  WRITE_TARGET,
  writeAgent,
  writeTasks,
} from './lib/environment-figures.mjs';
import { printSummary } from './lib/environment-summary.mjs';
import { deltaBin, root } from './lib/processes.mjs';
import { median } from './lib/stats.mjs';
import { useProjectWorkDir } from './lib/work-dir.mjs';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string', default: '256' },
    starts: { type: 'string', default: '15' },
    'big-copy-rounds': { type: 'string', default: '1' },
    only: { type: 'string', default: '2,3,4,5' },
    'skip-build': { type: 'boolean' },
  },
});
const rounds = Number(flags.rounds);
const runs = Number(flags.runs);
const only = new Set(flags.only.split(',').map((figure) => figure.trim()));
const progress = (text) => process.stderr.write(`bench environments: ${text}\n`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const MB = 1e6;

const probe = probeBubblewrap();
if (!probe.ok) {
  console.error(`bubblewrap is not usable here, and every figure is of the default sandbox: ${probe.problem}`);
  process.exit(1);
}
console.log(`load average at start: ${load()}`);
const images = ensureDebianImages(progress);
console.log(`images (bench/.images/BUILD.txt):\n  ${images.description.replaceAll('\n', '\n  ')}`);
const work = await useProjectWorkDir(progress);
let bin = join(root, 'apps/delta-cli/bin/delta.js');
if (!flags['skip-build']) {
  const { buildForBench } = await import('./lib/build.mjs');
  buildForBench(progress);
  bin = deltaBin;
}
// The image cache is the default one (~/.cache/delta/images) of a HOME of the bench's own, kept with the images.
const env = { ...process.env, HOME: join(imagesDir, 'home') };
console.log(`delta: ${bin}; work: ${work.dir}; image cache: ${join(env.HOME, '.cache/delta/images')}; ${rounds} rounds`);

/** Every measurement: `${figure}\t${variant}` -> [{ value, load }], printed as it is taken. */
const measured = new Map();
function record(figure, variant, value, unit, detail = '') {
  const key = `${figure}\t${variant}`;
  measured.set(key, [...(measured.get(key) ?? []), { value, unit, load: loadavg()[0] }]);
  console.log(`${figure}, ${variant}: ${value.toFixed(unit === 'MB' ? 2 : unit === 'ms' ? 1 : 2)} ${unit}${detail}; load ${load()}`);
}
const alternate = (round, variants) => (round % 2 === 1 ? variants : [...variants].reverse());

const agents = {
  image: writeAgent(
    join(work.dir, 'agent-image'),
    'bench-env-image',
    `dd if=/dev/zero of=${WRITE_TARGET.image} bs=1M count=1`,
    images.base,
  ),
  plain: writeAgent(join(work.dir, 'agent-plain'), 'bench-env-plain', `dd if=/dev/zero of=${WRITE_TARGET.plain} bs=1M count=1`),
};
const llm = await startOneStepModel();
const batches = { 16: writeTasks(join(work.dir, 'tasks-16.jsonl'), 16), [runs]: writeTasks(join(work.dir, `tasks-${runs}.jsonl`), runs) };
let outIndex = 0;
const batch = (variant, tasks) =>
  batchFigure({
    bin,
    llm,
    agent: agents[variant],
    tasksFile: batches[tasks],
    tasks,
    out: join(work.dir, `out-${++outIndex}-${variant}-${tasks}`),
    env,
  });
const batchRecord = (figure, variant, tasks, result) => {
  const perRun = result.outBytes / tasks / MB;
  const layer =
    result.layers.length > 0 ? `, each run's layer ${(median(result.layers) / MB).toFixed(2)} MB (median of ${result.layers.length})` : '';
  record(`${figure} wall`, variant, result.wallMs / 1000, 's');
  record(`${figure} disk/run`, variant, perRun, 'MB', ` (OUT ${(result.outBytes / MB).toFixed(0)} MB${layer})`);
  if (result.layers.length > 0) record(`${figure} layer/run`, variant, median(result.layers) / MB, 'MB');
  return result;
};

try {
  progress('warm-up: 16 runs in the image (unpacked into the cache if it is not there yet) and 16 with none, not measured...');
  await batch('image', 16);
  await batch('plain', 16);
  if (only.has('2')) {
    for (let round = 1; round <= rounds; round += 1) {
      for (const variant of alternate(round, ['image', 'plain'])) {
        progress(`figure 2, round ${round}: ${runs} runs at once, ${variant === 'image' ? 'in the image' : 'no image'}...`);
        const result = batchRecord('2', variant, runs, await batch(variant, runs));
        const tree = result.tree.peak;
        const parts = tree.binaries.map((binary) => `${binary.name} ${(binary.kib / 1000).toFixed(0)}`).join(', ');
        record(
          '2 memory',
          variant,
          tree.bytes / MB,
          'MB',
          ` (${tree.processes} processes; anonymous ${(tree.anonymousBytes / MB).toFixed(0)} MB + ${parts} MB)`,
        );
      }
    }
  }
  if (only.has('3')) {
    for (let start = 1; start <= Number(flags.starts); start += 1) {
      for (const variant of alternate(start, ['image', 'plain'])) {
        const agent = writeAgent(
          join(work.dir, `agent-start-${variant}`),
          `bench-env-start-${variant}`,
          'echo ok',
          variant === 'image' ? images.base : undefined,
        );
        const result = await firstToolCall({ bin, agent, workspace: join(work.dir, `start-${variant}-${start}`), env });
        record('3 to 1st request', variant, result.firstRequestMs, 'ms');
        record('3 to 1st tool result', variant, result.firstToolMs, 'ms', ` (whole run ${result.wallMs.toFixed(0)} ms)`);
      }
    }
  }
  if (only.has('4')) {
    const source = await imageRoot(images.base, join(env.HOME, '.cache/delta/images'));
    for (let round = 1; round <= rounds; round += 1) {
      for (const variant of alternate(round, ['copy', 'image'])) {
        progress(`figure 4, round ${round}: 16 runs, ${variant === 'copy' ? 'cp -a of the root per run' : 'our batch in the image'}...`);
        if (variant === 'image') batchRecord('4 at 16', 'image', 16, await batch('image', 16));
        else {
          const copy = await copyFigure({ source, into: join(work.dir, `copies-16-${round}`), count: 16 });
          record('4 at 16 wall', 'cp -a', copy.wallMs / 1000, 's', ` (${(copy.syncedMs / 1000).toFixed(2)} s to synced)`);
          record('4 at 16 disk/run', 'cp -a', copy.bytes / 16 / MB, 'MB');
        }
      }
    }
  }
  if (only.has('5')) {
    const cache = (name) => join(work.dir, `unpack-${name}`);
    const baseline = await unpackFigure({ reference: images.base, cacheDir: cache('baseline'), resolveOnly: true });
    record('5 peak RSS', 'resolve only', baseline.peakKiB / 1024, 'MiB', ' (node, @delta/images loaded, the image read, nothing unpacked)');
    for (let round = 1; round <= rounds; round += 1) {
      for (const [variant, reference] of alternate(round, [
        ['100 MB', images.base],
        ['+1 GiB', images.big],
      ])) {
        progress(`figure 5, round ${round}: first unpack of ${variant}...`);
        const result = await unpackFigure({ reference, cacheDir: cache(`${variant.replace(/\W/g, '')}-${round}`) });
        const detail = ` (${result.layers} layers, ${(result.layerBytes / MB).toFixed(0)} MB compressed, root ${(result.rootBytes / MB).toFixed(0)} MB; CPU ${(result.cpuMs / 1000).toFixed(1)} s)`;
        record('5 unpack', variant, result.unpackMs / 1000, 's', detail);
        record('5 peak RSS', variant, result.peakKiB / 1024, 'MiB');
        // The highest RSS read (every 50 ms) in the first and in the second half of the process's life.
        record('5 RSS 1st half', variant, result.halvesKiB[0] / 1024, 'MiB');
        record('5 RSS 2nd half', variant, result.halvesKiB[1] / 1024, 'MiB');
      }
    }
  }
  if (only.has('4')) {
    const source = await imageRoot(images.base, join(env.HOME, '.cache/delta/images'));
    for (let round = 1; round <= Number(flags['big-copy-rounds']); round += 1) {
      progress(`figure 4: ${runs} copies with cp -a at once (last: the heaviest on the disk)...`);
      const copy = await copyFigure({ source, into: join(work.dir, `copies-${runs}-${round}`), count: runs });
      record(`4 at ${runs} wall`, 'cp -a', copy.wallMs / 1000, 's', ` (${(copy.syncedMs / 1000).toFixed(2)} s to synced)`);
      record(`4 at ${runs} disk/run`, 'cp -a', copy.bytes / runs / MB, 'MB');
    }
  }
} finally {
  await llm.close();
}

printSummary({ measured, runs, only, load: load() });
console.log(`file create at start ${work.fileCreateMs.project.toFixed(3)} ms, at the end ${work.fileCreateMsNow().toFixed(3)} ms`);
// The copies and the extra unpacked roots are gigabytes: gone once measured (the runs stay, see work-dir.mjs),
// by an rm -rf left running when the bench ends. A million files take long to remove on this disk (40 minutes
// for the 256 copies at load 20 to 50): a bench started meanwhile waits for file creation to be quick again.
const doomed = readdirSync(work.dir).filter((entry) => /^(copies|unpack)-/.test(entry));
const remover = spawn('rm', ['-rf', ...doomed.map((entry) => join(work.dir, entry))], { detached: true, stdio: 'ignore' });
remover.unref();
console.log(`deleting ${doomed.join(', ')} in the background (rm -rf, pid ${remover.pid})`);
work.cleanup();
