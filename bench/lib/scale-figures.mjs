// The measurements of bench/scale.mjs (issue 34), one function per engine and figure; each returns what
// one round measured. `ours` is the delta CLI (its JS file, started with the launcher's Node flags as
// bin/delta starts it); `sdk` the OpenAI Agents SDK (lib/agents-sdk-runner.mjs) on the same fake model.
import { join } from 'node:path';
import { startFakeLlm } from '@delta/testkit';
import { agentsSdkArgs } from './agents-sdk.mjs';
import { benchEngineRun } from './engine-run.mjs';
import { launcherNodeFlags, run } from './processes.mjs';
import { watchTreeMemory } from './tree-memory.mjs';

/** Runs a process to its end; fails loudly unless it exits 0. With `memory`, samples its process tree. */
async function timed(args, { env, memory = false } = {}) {
  let watcher;
  const result = await run(process.execPath, args, { env, onSpawn: memory ? (pid) => (watcher = watchTreeMemory(pid)) : undefined });
  const tree = await watcher?.stop();
  if (result.code !== 0)
    throw new Error(`${args.slice(0, 3).join(' ')} ... exited ${result.code}:\n${(result.stderr + result.stdout).slice(-3000)}`);
  return { wallMs: result.wallMs, tree, stdout: result.stdout };
}

/** Fails unless the server answered `expected` model calls (all of them, both engines alike) since `before`. */
function checkCalls(llm, before, expected, what) {
  const calls = llm.requests.slice(before).filter((request) => request.method === 'POST');
  const bad = calls.filter((request) => request.status !== 200);
  if (calls.length !== expected || bad.length > 0)
    throw new Error(`${what}: the model served ${calls.length} calls (${bad.length} not 200), expected ${expected}`);
}

/**
 * One batch of `batch.tasks` tasks (prepareTwoStepBatch's: `steps` tool steps each, then the answer),
 * `concurrency` at a time: `delta batch` in the agent's default sandbox, into `out`.
 */
export async function oursBatch({ bin, batch, concurrency, steps, out, memory }) {
  const before = batch.llm.requests.length;
  const args = [...launcherNodeFlags(), bin, 'batch', batch.tasksFile, '--agent', batch.agent, '--out', out];
  // The batch agent says max_retries: 0 (for batch.mjs); here both engines retry as users get them (2): at
  // hundreds of runs on a loaded machine, a keep-alive socket the server has just closed (ECONNRESET) is
  // otherwise a failed run.
  const result = await timed([...args, '--concurrency', String(concurrency), '--retries', '2'], { env: batch.env, memory });
  checkCalls(batch.llm, before, batch.tasks * (steps + 1), 'delta batch');
  return result;
}

/** The same batch through the Agents SDK, in one process, `concurrency` runs at a time. */
export async function sdkBatch({ batch, concurrency, steps, memory }) {
  const before = batch.llm.requests.length;
  const args = agentsSdkArgs({ baseUrl: batch.llm.baseUrl, tasks: batch.tasks, concurrency, stepArgument: true });
  const result = await timed(args, { memory });
  checkCalls(batch.llm, before, batch.tasks * (steps + 1), 'Agents SDK');
  return result;
}

/** One `delta run` of `steps` tool steps (`echo ok` each) then the answer, in the default sandbox: its wall time. */
export async function oursRun({ bin, steps }) {
  const result = await benchEngineRun({ iterations: steps + 1, sandbox: 'workspace-write', bin });
  return { wallMs: result.wallMs };
}

/** The same one run through the Agents SDK, against a server scripted as benchEngineRun's is. */
export async function sdkRun({ steps }) {
  const llm = await startFakeLlm({
    script: (_request, index) =>
      index < steps ? { tool_calls: [{ id: `call_${index + 1}`, name: 'step', arguments: {} }] } : { content: 'done' },
  });
  try {
    const result = await timed(agentsSdkArgs({ baseUrl: llm.baseUrl, tasks: 1, concurrency: 1, stepArgument: false, maxTurns: steps + 5 }));
    checkCalls(llm, 0, steps + 1, 'Agents SDK');
    return result;
  } finally {
    await llm.close();
  }
}

/** `join(work, name)` for a run's output, unique per round and engine. */
export const outDir = (work, figure, engine, round) => join(work, `figure-${figure}`, `${engine}-round-${round}`);
