#!/usr/bin/env node
// pnpm bench: what Delta Engine costs next to the model, each figure against its target (issue 10).
// The engine runs as the real CLI in its own process against the testkit's fake model (answering at
// once) with one trivial exec: tool. Timings are medians; on a shared machine, run it twice.
//
//   node bench/run.mjs [--skip-build] [--rounds N]
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { buildForBench } from './lib/build.mjs';
import { runBreakdown, treeSize } from './lib/disk.mjs';
import { median } from './lib/stats.mjs';
import { formatTable } from './lib/table.mjs';

const { values: flags } = parseArgs({
  options: { 'skip-build': { type: 'boolean' }, rounds: { type: 'string', default: '21' } },
});
const rounds = Number(flags.rounds);
const MB = 1e6;
const progress = (text) => process.stderr.write(`bench: ${text}\n`);

if (!flags['skip-build']) buildForBench(progress);
const { useProjectWorkDir } = await import('./lib/work-dir.mjs');
const workDir = await useProjectWorkDir(progress);
// Loaded after the build: these import the workspace packages' dist/.
const { benchBigOutput, GIBIBYTE } = await import('./lib/big-output.mjs');
const { benchCliStart } = await import('./lib/cli-start.mjs');
const { benchEngineRun, turnsOf } = await import('./lib/engine-run.mjs');
const { checkRequests } = await import('./lib/requests.mjs');
const { benchSessionsExec } = await import('./lib/sessions.mjs');
const { benchSandboxOverhead } = await import('./lib/sandbox-overhead.mjs');

const loadBefore = loadavg()[0];
const rows = [];
const verdict = (ok) => (ok ? 'ok' : 'MISSED');
const ms = (value) => `${value.toFixed(1)} ms`;
const megabytes = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
const launcherRow = (result) => (result.launcherRssKiB ? `${((result.launcherRssKiB * 1024) / MB).toFixed(0)} MB` : 'not seen');

try {
  progress(`CLI start-up, ${rounds} rounds...`);
  const start = await benchCliStart(rounds);
  for (const [name, value] of [
    ['--version', start.version],
    ['--help', start.help],
  ]) {
    const extra = value - start.bare;
    rows.push([
      `CLI start: delta ${name} less node -e 0`,
      `+${ms(extra)} (${ms(value)} vs ${ms(start.bare)})`,
      '<= 50 ms',
      verdict(extra <= 50),
    ]);
  }

  // Not measured: brings the node binary, the modules and the file system's metadata back into memory
  // (this machine pages out what has been idle), as they are for every run after the first.
  progress('a 200-iteration warm-up run (not measured)...');
  await benchEngineRun({ iterations: 200 });

  progress('a 1,000-iteration run...');
  const thousand = await benchEngineRun({ iterations: 1000 });
  const requests = checkRequests(thousand);
  thousand.rawBodies = undefined;
  const size = treeSize(thousand.runDir);
  const parts = runBreakdown(thousand.runDir);
  // Runs are deleted only at the end: ext4 skips recently deleted inodes when it allocates new ones, so
  // deleting thousands of files makes every file created in the next minutes slower (see README.md).

  progress('a 2,000-iteration run...');
  const twoThousand = await benchEngineRun({ iterations: 2000 });
  twoThousand.rawBodies = undefined;
  const at200 = median(turnsOf(twoThousand, 176, 225));
  const at2000 = median(turnsOf(twoThousand, 1951, 2000));
  const growth = at2000 / at200 - 1;
  rows.push(['Engine overhead per iteration at 200 (median of 176-225)', ms(at200), '<= 6 ms', verdict(at200 <= 6)]);
  rows.push([
    'Engine overhead per iteration at 2,000 (median of 1951-2000)',
    `${ms(at2000)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(0)}% on 200)`,
    '<= +10% on 200',
    verdict(growth <= 0.1),
  ]);
  rows.push([
    '  (same, 1,000-iteration run: 176-225 / 951-1000)',
    `${ms(median(turnsOf(thousand, 176, 225)))} / ${ms(median(turnsOf(thousand, 951, 1000)))}`,
    'info',
    '',
  ]);
  rows.push([
    '  (fake model server time per request at 200 / 2,000)',
    `${ms(median(twoThousand.serverMs.slice(175, 225)))} / ${ms(median(twoThousand.serverMs.slice(1950, 2000)))}`,
    'info',
    '',
  ]);
  rows.push([
    '  (engine CPU time, user + system, per iteration: 1,000 / 2,000 runs)',
    `${ms(thousand.cpuMs / 1000)} / ${ms(twoThousand.cpuMs / 2000)}`,
    'info',
    '',
  ]);
  rows.push([
    '1,000-iteration run, wall time (process start to exit)',
    `${(thousand.wallMs / 1000).toFixed(2)} s`,
    '< 6 s',
    verdict(thousand.wallMs < 6000),
  ]);
  rows.push([
    'Control plane of that run (.delta/<run>, bytes of files)',
    `${megabytes(size.bytes)} in ${size.files} files`,
    '< 20 MB',
    verdict(size.bytes < 20 * MB),
  ]);
  rows.push([
    '  (its parts: journal / io/invocations / io/tool_executions)',
    `${megabytes(parts['journal.jsonl'] ?? 0)} / ${megabytes(parts['io/invocations'] ?? 0)} / ${megabytes(parts['io/tool_executions'] ?? 0)}`,
    'info',
    '',
  ]);
  rows.push(['  (same, disk blocks allocated, du -s)', megabytes(size.allocated), 'info', '']);
  const allExact = requests.exact === requests.count && requests.count === 1000 && requests.cli === 'exact' && requests.shell === 'exact';
  rows.push([
    'Requests recoverable byte for byte (readInvocationRequest)',
    `${requests.exact}/${requests.count} (${requests.kinds.whole} request.json, ${requests.kinds.delta} request.delta.json)`,
    'all',
    verdict(allExact),
  ]);
  rows.push(['  the last one via delta show invocation 1000 --request', requests.cli, 'exact', verdict(requests.cli === 'exact')]);
  rows.push([
    '  the last one via sh + head + jq (bench/lib/rebuild-request.sh)',
    requests.shell,
    'exact',
    verdict(requests.shell === 'exact'),
  ]);
  const rss = (thousand.maxRssKiB * 1024) / MB;
  rows.push(['Peak RSS, 1,000-iteration run (the engine process)', `${rss.toFixed(0)} MB`, '< 150 MB', verdict(rss < 150)]);
  rows.push(['  (its tool launcher process, peak RSS, mostly the node binary shared with the engine)', launcherRow(thousand), 'info', '']);

  progress('a tool that prints 1 GiB...');
  const big = await benchBigOutput();
  const bigRss = (big.maxRssKiB * 1024) / MB;
  rows.push([
    'Peak RSS, a tool printing 1 GiB (the engine process)',
    `${bigRss.toFixed(0)} MB (stdout.log ${big.logBytes === GIBIBYTE ? 'has all 1 GiB' : `has ${big.logBytes} bytes`}, ${(big.wallMs / 1000).toFixed(1)} s)`,
    '< 150 MB',
    verdict(bigRss < 150 && big.logBytes === GIBIBYTE),
  ]);
  rows.push(['  (its tool launcher process, peak RSS)', launcherRow(big), 'info', '']);

  progress('two 300-iteration runs, sandbox off and on...');
  const sandbox = await benchSandboxOverhead(300);
  rows.push([
    'Sandbox per tool call: engine turn, sandbox on less off (median of 51-300)',
    `+${ms(sandbox.on - sandbox.off)} (${ms(sandbox.on)} vs ${ms(sandbox.off)})`,
    '<= 2 ms',
    verdict(sandbox.on - sandbox.off <= 2),
  ]);

  progress(`delta-sessions exec, ${rounds} rounds...`);
  const sessions = await benchSessionsExec(rounds);
  rows.push([
    'delta-sessions exec (bash session) less bash -c',
    `+${ms(sessions.exec - sessions.bash)} (${ms(sessions.exec)} vs ${ms(sessions.bash)})`,
    'reported',
    '',
  ]);
  rows.push([
    '  (file system: one create in bench/.work at start / at end; in the system temp dir)',
    `${workDir.fileCreateMs.project.toFixed(3)} ms / ${workDir.fileCreateMsNow().toFixed(3)} ms; ${workDir.fileCreateMs.systemTemp.toFixed(3)} ms${workDir.settleWaitMs ? ` (after waiting ${workDir.settleWaitMs / 1000} s for it to settle)` : ''}`,
    'info',
    '',
  ]);
} finally {
  // This bench's runs stay in bench/.work until the next bench has measured (see lib/work-dir.mjs).
  workDir.cleanup();
}

const cores = cpus().length;
console.log(
  `Delta Engine bench: node ${process.version}, ${cores} cores, load average ${loadBefore.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`,
);
console.log('Times are medians; the engine runs as `delta run` against the testkit model (instant answers) with one exec: tool.\n');
console.log(formatTable(['figure', 'measured', 'target', ''], rows));
const missed = rows.filter((row) => row[3] === 'MISSED').length;
console.log(`\n${rows.filter((row) => row[3] === 'ok').length} ok, ${missed} missed`);
