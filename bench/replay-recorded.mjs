#!/usr/bin/env node
// `node bench/replay-recorded.mjs [--iterations N]`: how long `delta replay --tools recorded` takes for a
// recorded run of N iterations (default 1,000; target under 3 s). Uses the built `delta` and
// `delta-fake-llm` (run `pnpm build` first). The run is recorded once against the fake model (not timed),
// then replayed three times with no server at all; each replay's wall time, process start to exit, is printed
// with its CPU time (user + system, from lib/report-rss.cjs), which a loaded machine inflates far less.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './lib/processes.mjs';
import { recordRun, replayRecorded } from './lib/recorded-run.mjs';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '1000' } } });
const iterations = Number(values.iterations);

const work = join(root, 'bench/.work', `replay-${Date.now()}`);
const recorded = recordRun({ work, iterations });

console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}; ${iterations}-iteration recorded run in ${recorded}`,
);
for (let round = 1; round <= 3; round += 1) {
  const { wallMs, cpuMs, peakKiB, status, summary, output } = replayRecorded({ recorded, into: join(work, `replay-${round}`) });
  console.log(
    `replay ${round}: ${(wallMs / 1000).toFixed(2)} s (target < 3 s), CPU ${(cpuMs / 1000).toFixed(2)} s, peak RSS ${Math.round(peakKiB / 1024)} MiB, exit ${status}, ${summary ? `identical ${summary.identical}, ${summary.iterations} model calls` : output}`,
  );
}
