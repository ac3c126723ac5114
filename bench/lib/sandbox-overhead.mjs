import { benchEngineRun, turnsOf } from './engine-run.mjs';
import { median } from './stats.mjs';

/**
 * What the sandbox adds to each tool call as a run sees it: two runs of `iterations` iterations, one with
 * `sandbox: {mode: off}` and one in the default sandbox (workspace-write, network on), each iteration one
 * trivial `exec:` tool call; the medians of the engine's turns from iteration 51 (the first are warm-up).
 */
export async function benchSandboxOverhead(iterations = 300) {
  const off = await benchEngineRun({ iterations, sandbox: 'off' });
  const on = await benchEngineRun({ iterations, sandbox: 'workspace-write' });
  return { off: median(turnsOf(off, 51, iterations)), on: median(turnsOf(on, 51, iterations)) };
}
