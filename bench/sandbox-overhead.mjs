// Per-tool-call overhead of the sandbox:
//
//   node bench/sandbox-overhead.mjs [--calls 200] [--rounds 3] [--skip-build] [--before SOURCE-TREE]
//
// (after `pnpm build`). First the tool call alone: the same call (`true`, output to files) unsandboxed
// through the tool launcher, in the run's sandbox (a spawn by the launcher inside it), and as each call
// ran before there was a launcher inside (its own bubblewrap joining the run's namespaces, started by the
// launcher outside: RunSandbox.wrap), interleaved call by call, medians, with the network on and off.
// Then as a run sees it: `delta run`'s turn per iteration (one trivial exec: tool each) with the sandbox
// off and on, medians of turns 51-300 — the figure `pnpm bench` prints too — and, with --before, the same
// for a second source tree (a clone of this repository at an earlier commit, with its node_modules),
// bundled as ab.mjs does, its runs interleaved with these. Each round prints its figures; the last rows
// are the medians of the rounds. Timings only; nothing here is a test. Quote the machine's load.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CommandLauncher, probeBubblewrap, RunSandbox, runCommand } from '../packages/command-runner/dist/index.js';

const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    'skip-build': { type: 'boolean' },
    before: { type: 'string' },
  },
});
const calls = Number(flags.calls);
const rounds = Number(flags.rounds);
const progress = (text) => process.stderr.write(`bench: ${text}\n`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
console.log(`load average at start: ${load()}`);

const here = fileURLToPath(new URL('.', import.meta.url));
mkdirSync(join(here, '.work'), { recursive: true });
const workspace = mkdtempSync(join(here, '.work', 'sandbox-overhead-'));
mkdirSync(join(workspace, '.delta', 'io'), { recursive: true });

const probe = probeBubblewrap();
if (!probe.ok) {
  console.error(`bubblewrap is not usable here: ${probe.problem}`);
  process.exit(1);
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (value) => `${value.toFixed(2)} ms`;

const launcher = CommandLauncher.start();
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
let index = 0;
/** One call of `true`: unsandboxed (no sandbox), in the sandbox, or (`perCall`) with a bubblewrap of its own. */
async function call(sandbox, perCall = false) {
  index += 1;
  const files = {
    stdoutFile: join(workspace, '.delta', 'io', `${index}.out`),
    stderrFile: join(workspace, '.delta', 'io', `${index}.err`),
  };
  const started = performance.now();
  if (perCall) {
    const wrapped = await sandbox.wrap('true', [], workspace);
    await runCommand({
      file: wrapped.file,
      args: wrapped.args,
      inheritFiles: wrapped.inheritFiles,
      cwd: workspace,
      env,
      ...files,
      launcher,
    });
  } else {
    await runCommand({ file: 'true', args: [], cwd: workspace, env, ...files, launcher, ...(sandbox ? { sandbox } : {}) });
  }
  return performance.now() - started;
}

const alone = { true: [], false: [] };
for (let round = 1; round <= rounds; round += 1) {
  for (const network of [true, false]) {
    const sandbox = RunSandbox.start(
      { mode: 'workspace-write', network, workspace, protectedPaths: [join(workspace, '.delta')], visiblePaths: [], writablePaths: [] },
      probe.path,
    );
    // Warm-up: the sandbox's start, the launchers, the page cache.
    for (let warm = 0; warm < 10; warm += 1) {
      await call(sandbox);
      await call(undefined);
      await call(sandbox, true);
    }
    const plain = [];
    const inside = [];
    const perCall = [];
    for (let count = 0; count < calls; count += 1) {
      plain.push(await call(undefined));
      inside.push(await call(sandbox));
      perCall.push(await call(sandbox, true));
    }
    await sandbox.stop();
    const row = { off: median(plain), on: median(inside), perCall: median(perCall) };
    alone[network].push(row);
    console.log(
      `round ${round}, network ${network ? 'on ' : 'off'}, a tool call alone, median of ${calls}: unsandboxed ${ms(row.off)}, sandboxed ${ms(row.on)} (overhead ${ms(row.on - row.off)}), a bubblewrap per call ${ms(row.perCall)} (overhead ${ms(row.perCall - row.off)}); load ${load()}`,
    );
  }
}
await launcher.close();
rmSync(workspace, { recursive: true, force: true });

const variants = [{ name: 'this tree', bin: undefined }];
if (flags.before) {
  const dir = resolve(flags.before);
  const out = join(dir, 'apps/delta-cli/node_modules/.delta-ab');
  variants.push({ name: 'before', dir, out, bin: join(out, 'delta.js') });
}
if (!flags['skip-build']) {
  const { buildForBench } = await import('./lib/build.mjs');
  buildForBench(progress);
  for (const variant of variants.slice(1)) {
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
const { benchEngineRun, turnsOf } = await import('./lib/engine-run.mjs');
const engine = new Map(variants.map((variant) => [variant.name, []]));
for (let round = 1; round <= rounds; round += 1) {
  // Every other round in the other order (variants, and off and on), so that none always runs first.
  const order = round % 2 === 1 ? variants : [...variants].reverse();
  for (const variant of order) {
    const bin = variant.bin ? { bin: variant.bin } : {};
    const modes = round % 2 === 1 ? ['off', 'workspace-write'] : ['workspace-write', 'off'];
    progress(`round ${round}/${rounds}, ${variant.name}: 300 iterations with the sandbox ${modes.join(', then ')}...`);
    const turns = {};
    for (const mode of modes) turns[mode] = median(turnsOf(await benchEngineRun({ iterations: 300, sandbox: mode, ...bin }), 51, 300));
    const { off, 'workspace-write': on } = turns;
    engine.get(variant.name).push({ off, on });
    console.log(
      `round ${round}, ${variant.name}: delta run, engine turn per iteration (one tool call), median of 51-300: sandbox off ${ms(off)}, on ${ms(on)}, overhead ${ms(on - off)}; load ${load()}`,
    );
  }
}

console.log(`\nmedians of ${rounds} rounds (target: at most 2 ms per call); load average at the end: ${load()}`);
for (const network of [true, false]) {
  const rows = alone[network];
  const pick = (key) => median(rows.map((row) => row[key]));
  const overhead = (key) => median(rows.map((row) => row[key] - row.off));
  console.log(
    `a tool call alone, network ${network ? 'on ' : 'off'}: unsandboxed ${ms(pick('off'))}, sandboxed ${ms(pick('on'))}, overhead ${ms(overhead('on'))}; a bubblewrap per call ${ms(pick('perCall'))}, overhead ${ms(overhead('perCall'))}`,
  );
}
for (const [name, rows] of engine) {
  const off = median(rows.map((row) => row.off));
  const on = median(rows.map((row) => row.on));
  console.log(
    `delta run (${name}), engine turn per iteration: sandbox off ${ms(off)}, on ${ms(on)}, overhead ${ms(median(rows.map((row) => row.on - row.off)))}`,
  );
}
