#!/usr/bin/env node
// `node bench/replay-recorded.mjs [--iterations N]`: how long `delta replay --tools recorded` takes for a
// recorded run of N iterations (default 1,000; target under 3 s). Uses the built `delta` and
// `delta-fake-llm` (run `pnpm build` first). The run is recorded once against the fake model (not timed),
// then replayed three times with no server at all; each replay's wall time, process start to exit, is printed
// with its CPU time (user + system, from lib/report-rss.cjs), which a loaded machine inflates far less.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const DELTA = join(root, 'apps/delta-cli/bin/delta.js');
const FAKE_LLM = join(root, 'packages/testkit/bin/delta-fake-llm.js');
const { values } = parseArgs({ options: { iterations: { type: 'string', default: '1000' } } });
const iterations = Number(values.iterations);

const work = join(root, 'bench/.work', `replay-${Date.now()}`);
const agent = join(work, 'agent');
mkdirSync(agent, { recursive: true });
writeFileSync(
  join(agent, 'agent.yaml'),
  `name: replay-bench\nllm:\n  model: bench-model\nmax_iterations: ${iterations + 1}\ntools:\n  - name: note\n    description: Say ok\n    exec: "echo ok"\n`,
);
writeFileSync(join(agent, 'system_prompt.md'), 'You are a bench agent.\n');
writeFileSync(join(agent, 'context.yaml'), 'sources:\n  - type: file\n    path: "${AGENT_HOME}/system_prompt.md"\n  - type: journal\n');
const steps = Array.from({ length: iterations - 1 }, (_, index) => ({
  content: `Step ${index + 1}.`,
  tool_calls: [{ name: 'note', arguments: {} }],
}));
steps.push({ content: 'Done.' });
writeFileSync(join(work, 'script.json'), JSON.stringify(steps));

const env = { ...process.env, DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined };
const recorded = join(work, 'recorded');
const record = spawnSync(
  process.execPath,
  [
    FAKE_LLM,
    '--script',
    join(work, 'script.json'),
    '--',
    process.execPath,
    DELTA,
    'run',
    '--agent',
    agent,
    '-w',
    recorded,
    '-m',
    'Go',
    '-q',
  ],
  {
    env,
    encoding: 'utf8',
  },
);
if (record.status !== 0) throw new Error(`recording failed (${record.status}): ${record.stderr}`);

console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}; ${iterations}-iteration recorded run in ${recorded}`,
);
const REPORT = join(root, 'bench/lib/report-rss.cjs');
const usageFile = join(work, 'usage.txt');
for (let round = 1; round <= 3; round += 1) {
  const started = performance.now();
  const replay = spawnSync(
    process.execPath,
    ['--require', REPORT, DELTA, 'replay', '-w', recorded, '--tools', 'recorded', '--into', join(work, `replay-${round}`), '--json', '-q'],
    { env: { ...env, DELTA_BASE_URL: 'http://127.0.0.1:9/v1', BENCH_RSS_FILE: usageFile }, encoding: 'utf8' },
  );
  const seconds = (performance.now() - started) / 1000;
  const [peakKiB, cpuMs] = readFileSync(usageFile, 'utf8').trim().split(' ').map(Number);
  const result = replay.status === 0 ? JSON.parse(replay.stdout) : undefined;
  console.log(
    `replay ${round}: ${seconds.toFixed(2)} s (target < 3 s), CPU ${(cpuMs / 1000).toFixed(2)} s, peak RSS ${Math.round(peakKiB / 1024)} MiB, exit ${replay.status}, ${result ? `identical ${result.identical}, ${result.iterations} model calls` : replay.stdout + replay.stderr}`,
  );
}
