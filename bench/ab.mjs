#!/usr/bin/env node
// A/B: the engine figures of several builds of `delta`, measured in one session, alternating. On a shared
// machine two separate benches differ by more than most changes do; alternating the variants round by
// round spreads the machine's moods over all of them. Each variant is a source tree (a clone of this
// repository with its node_modules, one change applied), bundled as the bench bundles the CLI.
//
//   node bench/ab.mjs --variant base=/tmp/ab-base --variant no-x=/tmp/ab-no-x [--rounds 5] [--skip-build] [--long-only]
//
// Per round and variant: a 1,000-iteration run (wall time) and a 2,000-iteration run (engine overhead per
// iteration, medians of 176-225 and 1951-2000, as `pnpm bench` takes them), and, from both, CPU time per
// iteration: the engine's own, and its children's (the tool launcher and the tools). CPU time moves much
// less with the machine's load than wall time does. Prints every round, then the median of the rounds and
// their spread (min-max) for each variant.
//
// Then, per round and variant, a long run as a user runs one (lib/long-run.mjs, issue 45 item 6): 400
// iterations in the default sandbox, the whole journal as context, the model a scripted server in a process
// of its own; the median wall time of its first 50 and of its last 50 iterations, from the journal's
// THOUGHT timestamps. A run whose iterations wait longer as it grows shows here, not in the turns above,
// whose server shares the bench's process and whose runs have no sandbox.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { median } from './lib/stats.mjs';
import { formatTable } from './lib/table.mjs';

const { values: flags } = parseArgs({
  options: {
    variant: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '5' },
    'skip-build': { type: 'boolean' },
    'long-only': { type: 'boolean' },
  },
});
const progress = (text) => process.stderr.write(`ab: ${text}\n`);
const variants = (flags.variant ?? []).map((entry) => {
  const [name, dir] = entry.split('=');
  if (!name || !dir) throw new Error(`--variant wants name=source-tree, got "${entry}"`);
  const out = join(resolve(dir), 'apps/delta-cli/node_modules/.delta-ab');
  return { name, dir: resolve(dir), out, bin: join(out, 'delta.js') };
});
if (variants.length < 2) throw new Error('give at least two --variant name=source-tree');
const rounds = Number(flags.rounds);
// --long-only: the long sandboxed run alone (a round in seconds rather than minutes); the other columns read NaN.
const longOnly = flags['long-only'] === true;
const skipped = { turns: [], wallMs: Number.NaN, cpuMs: Number.NaN, childrenCpuMs: Number.NaN };

if (!flags['skip-build']) {
  for (const variant of variants) {
    progress(`bundling ${variant.name} from ${variant.dir}...`);
    mkdirSync(variant.out, { recursive: true });
    const result = spawnSync('pnpm', ['exec', 'tsup', '--silent', '--out-dir', variant.out], {
      cwd: join(variant.dir, 'apps/delta-cli'),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (result.status !== 0) throw new Error(`tsup failed for ${variant.name}`);
    writeFileSync(variant.bin, "#!/usr/bin/env node\nimport './cli.js';\n");
  }
}

const { useProjectWorkDir } = await import('./lib/work-dir.mjs');
const workDir = await useProjectWorkDir(progress);
const { benchEngineRun, turnsOf } = await import('./lib/engine-run.mjs');
const { benchLongRun } = await import('./lib/long-run.mjs');

const loadBefore = loadavg()[0];
const figures = new Map(
  variants.map((variant) => [
    variant.name,
    { at200: [], at2000: [], wall1000: [], cpu: [], childrenCpu: [], longEarly: [], longLate: [], longCpu: [] },
  ]),
);
const roundRows = [];
try {
  for (const variant of longOnly ? [] : variants) {
    progress(`${variant.name}: a 200-iteration warm-up run (not measured)...`);
    await benchEngineRun({ iterations: 200, bin: variant.bin });
  }
  for (let round = 1; round <= rounds; round += 1) {
    // Rotate the order, so that no variant always runs first (or right after the same one).
    const order = variants.map((_, index) => variants[(index + round - 1) % variants.length]);
    for (const variant of order) {
      if (!longOnly) progress(`round ${round}/${rounds}, ${variant.name}: 1,000 then 2,000 iterations...`);
      const thousand = longOnly ? skipped : await benchEngineRun({ iterations: 1000, bin: variant.bin });
      const twoThousand = longOnly ? skipped : await benchEngineRun({ iterations: 2000, bin: variant.bin });
      progress(`round ${round}/${rounds}, ${variant.name}: 400 sandboxed iterations, the server in its own process...`);
      const long = await benchLongRun({ iterations: 400, bin: variant.bin });
      const row = {
        at200: median(turnsOf(twoThousand, 176, 225)),
        at2000: median(turnsOf(twoThousand, 1951, 2000)),
        wall1000: thousand.wallMs / 1000,
        cpu: (thousand.cpuMs + twoThousand.cpuMs) / 3000,
        childrenCpu: (thousand.childrenCpuMs + twoThousand.childrenCpuMs) / 3000,
        longEarly: long.early,
        longLate: long.late,
        longCpu: long.cpuMs / 400,
      };
      const entry = figures.get(variant.name);
      for (const key of Object.keys(row)) entry[key].push(row[key]);
      roundRows.push([
        String(round),
        variant.name,
        row.at200.toFixed(2),
        row.at2000.toFixed(2),
        row.wall1000.toFixed(2),
        row.cpu.toFixed(2),
        row.childrenCpu.toFixed(2),
        row.longEarly.toFixed(2),
        row.longLate.toFixed(2),
        row.longCpu.toFixed(2),
        loadavg()[0].toFixed(1),
      ]);
    }
  }
} finally {
  workDir.cleanup();
}

const spread = (values, digits) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
console.log(
  `A/B bench: node ${process.version}, ${rounds} rounds, load average ${loadBefore.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end\n`,
);
console.log(
  formatTable(
    [
      'round',
      'variant',
      'ms/iter at 200',
      'ms/iter at 2,000',
      '1,000 iter wall s',
      'engine CPU ms/iter',
      'children CPU ms/iter',
      'long: ms/iter 2-51',
      'long: ms/iter 351-400',
      'long: engine CPU ms/iter',
      'load',
    ],
    roundRows,
  ),
);
console.log('');
console.log(
  formatTable(
    [
      'variant',
      'ms/iter at 200, median (min-max)',
      'ms/iter at 2,000',
      '1,000-iteration wall s',
      'engine CPU ms/iter',
      'children CPU ms/iter',
      'long, sandboxed: ms/iter 2-51',
      'ms/iter 351-400',
      'long: engine CPU ms/iter',
    ],
    variants.map((variant) => {
      const entry = figures.get(variant.name);
      return [
        variant.name,
        spread(entry.at200, 2),
        spread(entry.at2000, 2),
        spread(entry.wall1000, 2),
        spread(entry.cpu, 2),
        spread(entry.childrenCpu, 2),
        spread(entry.longEarly, 2),
        spread(entry.longLate, 2),
        spread(entry.longCpu, 2),
      ];
    }),
  ),
);
