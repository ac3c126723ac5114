// A recorded run of N iterations and its replay with `delta replay --tools recorded` (no model, no tools),
// as replay-recorded.mjs and scale.mjs time it. Uses the built `delta` (or the `delta` given) and
// `delta-fake-llm`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './processes.mjs';

const DELTA = join(root, 'apps/delta-cli/bin/delta.js');
const FAKE_LLM = join(root, 'packages/testkit/bin/delta-fake-llm.js');
const REPORT = join(root, 'bench/lib/report-rss.cjs');
const env = { ...process.env, DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined };

/**
 * Records a run of `iterations` iterations (each but the last one `echo ok` tool call) under `work`,
 * against the fake model (not timed). Returns its workspace.
 */
export function recordRun({ work, iterations, delta = DELTA }) {
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
  const recorded = join(work, 'recorded');
  const record = spawnSync(
    process.execPath,
    [
      FAKE_LLM,
      '--script',
      join(work, 'script.json'),
      '--',
      process.execPath,
      delta,
      'run',
      '--agent',
      agent,
      '-w',
      recorded,
      '-m',
      'Go',
      '-q',
    ],
    { env, encoding: 'utf8' },
  );
  if (record.status !== 0) throw new Error(`recording failed (${record.status}): ${record.stderr}`);
  return recorded;
}

/**
 * Replays the run recorded in `recorded` into `into` with `--tools recorded` and no server at all. Returns
 * its wall time (process start to exit, ms), CPU time (ms) and peak RSS (KiB) from lib/report-rss.cjs, its
 * exit code, and its JSON summary (`identical`, `iterations`) or its output when it failed.
 */
export function replayRecorded({ recorded, into, delta = DELTA }) {
  const usageFile = `${into}.usage`;
  const started = performance.now();
  const replay = spawnSync(
    process.execPath,
    ['--require', REPORT, delta, 'replay', '-w', recorded, '--tools', 'recorded', '--into', into, '--json', '-q'],
    { env: { ...env, DELTA_BASE_URL: 'http://127.0.0.1:9/v1', BENCH_RSS_FILE: usageFile }, encoding: 'utf8' },
  );
  const wallMs = performance.now() - started;
  const [peakKiB, cpuMs] = readFileSync(usageFile, 'utf8').trim().split(' ').map(Number);
  const summary = replay.status === 0 ? JSON.parse(replay.stdout) : undefined;
  return { wallMs, cpuMs, peakKiB, status: replay.status, summary, output: replay.stdout + replay.stderr };
}
