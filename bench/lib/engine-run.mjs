import diagnostics from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { deltaBin, launcherNodeFlags, run } from './processes.mjs';

/**
 * Times every request the fake model serves, from its headers arriving to its answer being sent, through
 * Node's http diagnostics channels (the testkit server itself is unchanged).
 */
function watchServer() {
  const served = [];
  const open = new Map();
  const onStart = ({ request }) => open.set(request, performance.now());
  const onFinish = ({ request }) => {
    const start = open.get(request);
    open.delete(request);
    if (start !== undefined && request.method === 'POST') served.push({ start, finish: performance.now() });
  };
  diagnostics.subscribe('http.server.request.start', onStart);
  diagnostics.subscribe('http.server.response.finish', onFinish);
  return {
    served,
    stop() {
      diagnostics.unsubscribe('http.server.request.start', onStart);
      diagnostics.unsubscribe('http.server.response.finish', onFinish);
    },
  };
}

/**
 * Runs `delta run` (the built CLI, or the `bin` given, in its own process) for `iterations` model calls against the testkit
 * server answering instantly: every answer but the last calls one trivial `exec:` tool, in the sandbox `sandbox`.
 *
 * Returns, per iteration k >= 2, the engine's turn: from the model's answer k-1 being sent to request k
 * arriving (so the wall time less the server's time), plus the whole run's wall time, peak RSS and paths.
 */
export async function benchEngineRun({
  iterations,
  tool = { exec: 'echo ok' },
  message = 'Call the tool until told otherwise.',
  bin = deltaBin,
  // The engine's own cost is measured without the sandbox; sandbox-overhead.mjs measures what it adds.
  sandbox = 'off',
}) {
  const server = await startFakeLlm({
    script: (_request, index) =>
      index < iterations - 1 ? { tool_calls: [{ id: `call_${index + 1}`, name: 'step', arguments: {} }] } : { content: 'done' },
  });
  const agent = await createTempAgent({
    agentYaml: {
      name: 'bench-agent',
      llm: { model: 'bench-model' },
      sandbox: { mode: sandbox },
      tools: [{ name: 'step', description: 'One trivial step', ...tool }],
    },
  });
  const work = join(await createTempDir('delta-bench-work-'), 'ws');
  const watch = watchServer();
  let result;
  const spawnedAt = performance.now();
  try {
    result = await run(
      process.execPath,
      [...launcherNodeFlags(), bin, 'run', '--agent', agent, '-m', message, '-w', work, '--max-iterations', String(iterations + 1), '-y'],
      { env: { DELTA_API_KEY: 'bench-key', DELTA_BASE_URL: server.baseUrl }, measureRss: true },
    );
  } finally {
    watch.stop();
    await server.close();
  }
  if (result.code !== 0) throw new Error(`delta run exited ${result.code}:\n${result.stderr.slice(-4000)}`);
  const { served } = watch;
  if (served.length !== iterations) throw new Error(`expected ${iterations} model calls, the server saw ${served.length}`);
  // turns[k] is the engine's time before request k+1 (index 0 is the start-up before the first request).
  const turns = served.map((request, index) => (index === 0 ? Number.NaN : request.start - served[index - 1].finish));
  const serverMs = served.map((request) => request.finish - request.start);
  const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
  const rawBodies = server.requests.filter((request) => request.method === 'POST').map((request) => request.rawBody);
  const startMs = served[0].start - spawnedAt;
  const endMs = result.wallMs - (served.at(-1).finish - spawnedAt);
  return {
    startMs,
    endMs,
    wallMs: result.wallMs,
    cpuMs: result.cpuMs,
    childrenCpuMs: result.childrenCpuMs,
    maxRssKiB: result.maxRssKiB,
    launcherRssKiB: result.launcherRssKiB,
    turns,
    serverMs,
    rawBodies,
    work,
    runDir: join(work, '.delta', runId),
  };
}

/** The turns of iterations `from`..`to` (1-based, inclusive). */
export function turnsOf(runResult, from, to) {
  return runResult.turns.slice(from - 1, to).filter((value) => Number.isFinite(value));
}
