// The measurements of bench/environments.mjs (issue 43), one function per figure; each returns what one
// measurement gave. Runs are `delta batch` / `delta run` processes of the CLI (started with bin/delta's
// Node flags) against the testkit's fake model in the bench's process, in the default sandbox
// (bubblewrap, workspace-write), with HOME set so that the image cache (~/.cache/delta/images) is the
// bench's own (`cacheHome`).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeLlm } from '@delta/testkit';
import { treeSize } from './disk.mjs';
import { launcherNodeFlags, root, run } from './processes.mjs';
import { watchTreeMemory } from './tree-memory.mjs';

/** Where a run in the image writes its 1 MB: its root outside the workspace (so its own layer); without an image, its private /tmp. */
export const WRITE_TARGET = { image: '/var/tmp/x', plain: '/tmp/x' };

/** An agent directory: one tool `step` running `command`, in `image` (a reference) or in no image. */
export function writeAgent(dir, name, command, image) {
  mkdirSync(dir, { recursive: true });
  const sandbox = image ? `sandbox:\n  image: ${JSON.stringify(image)}\n  workdir: /workspace\n` : '';
  writeFileSync(
    join(dir, 'agent.yaml'),
    `name: ${name}\nllm:\n  model: bench-model\n  max_retries: 0\nask_human: false\n${sandbox}tools:\n  - name: step\n    description: Do one step\n    exec: ${JSON.stringify(command)}\n`,
  );
  writeFileSync(join(dir, 'system_prompt.md'), 'Do the task.\n');
  writeFileSync(join(dir, 'context.yaml'), 'sources:\n  - type: file\n    path: "${AGENT_HOME}/system_prompt.md"\n  - type: journal\n');
  return dir;
}

/** A fake model that asks for one `step` call per run, then answers; `onRequest(toolMessages)` sees each request. */
export function startOneStepModel(onRequest = () => {}) {
  return startFakeLlm({
    script: (request) => {
      const tools = request.body.messages.filter((message) => message.role === 'tool').length;
      onRequest(tools);
      return tools < 1 ? { tool_calls: [{ name: 'step', arguments: {} }] } : { content: 'done' };
    },
  });
}

export function writeTasks(file, count) {
  writeFileSync(
    file,
    `${Array.from({ length: count }, (_, index) => JSON.stringify({ id: `t${index + 1}`, message: `task ${index + 1}` })).join('\n')}\n`,
  );
  return file;
}

/** Allocated bytes of a tree as `du -s` counts them (st_blocks, hard links once): fast on a million files. */
export function duBytes(path) {
  const result = spawnSync('du', ['-s', '-B1', path], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`du ${path}: ${result.stderr}`);
  return Number(result.stdout.split('\t')[0]);
}

/** Every run's layer directory (`.delta/<run>/layer`) under a batch's OUT. */
function layerDirs(out) {
  const found = [];
  const visit = (dir, depth) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(dir, entry.name);
      if (entry.name === '.delta') {
        for (const runDir of readdirSync(path, { withFileTypes: true }))
          if (runDir.isDirectory()) {
            const layer = join(path, runDir.name, 'layer');
            try {
              readdirSync(layer);
              found.push(layer);
            } catch {
              // A run with no image has none.
            }
          }
      } else if (depth < 6) visit(path, depth + 1);
    }
  };
  visit(out, 0);
  return found;
}

/**
 * One `delta batch` of `tasks` one-step runs, all at once (`--concurrency tasks`): wall time, peak memory of
 * its process tree (lib/tree-memory.mjs), the allocated bytes of OUT and of each run's layer.
 */
export async function batchFigure({ bin, llm, agent, tasksFile, tasks, out, env }) {
  const before = llm.requests.length;
  let watcher;
  const args = [
    ...launcherNodeFlags(),
    bin,
    'batch',
    tasksFile,
    '--agent',
    agent,
    '--out',
    out,
    '--concurrency',
    String(tasks),
    '--retries',
    '2',
  ];
  const result = await run(process.execPath, args, {
    env: { ...env, DELTA_API_KEY: 'bench', DELTA_BASE_URL: llm.baseUrl },
    onSpawn: (pid) => (watcher = watchTreeMemory(pid)),
  });
  const tree = await watcher?.stop();
  if (result.code !== 0) throw new Error(`delta batch exited ${result.code}:\n${(result.stderr + result.stdout).slice(-3000)}`);
  const calls = llm.requests.slice(before).filter((request) => request.method === 'POST');
  if (calls.length !== tasks * 2 || calls.some((request) => request.status !== 200))
    throw new Error(`delta batch: the model served ${calls.length} calls, expected ${tasks * 2}, all 200`);
  const layers = layerDirs(out).map((layer) => treeSize(layer).allocated);
  return { wallMs: result.wallMs, tree, outBytes: duBytes(out), layers };
}

/**
 * One `delta run` (one tool call, then the answer): ms from its spawn to the model's first request, and to
 * its second (which carries the first tool call's result: the run's start, a model call and one tool call).
 */
export async function firstToolCall({ bin, agent, workspace, env }) {
  let spawnedAt = 0;
  const seen = [];
  const llm = await startOneStepModel(() => seen.push(performance.now() - spawnedAt));
  try {
    spawnedAt = performance.now();
    const args = [...launcherNodeFlags(), bin, 'run', '--agent', agent, '-m', 'go', '-w', workspace, '-y'];
    const result = await run(process.execPath, args, { env: { ...env, DELTA_API_KEY: 'bench', DELTA_BASE_URL: llm.baseUrl } });
    if (result.code !== 0 || seen.length !== 2)
      throw new Error(`delta run exited ${result.code} after ${seen.length} model calls:\n${result.stderr.slice(-3000)}`);
    return { firstRequestMs: seen[0], firstToolMs: seen[1], wallMs: result.wallMs };
  } finally {
    await llm.close();
  }
}

/** `count` copies of `source` made at once with `cp -a` (one process per copy), under `into`: wall time and allocated bytes. */
export async function copyFigure({ source, into, count }) {
  mkdirSync(into, { recursive: true });
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: count },
      (_, index) =>
        new Promise((resolve, reject) => {
          const child = spawn('cp', ['-a', source, join(into, `run-${index + 1}`)], { stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (chunk) => (stderr += chunk));
          child.once('error', reject);
          child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`cp -a exited ${code}: ${stderr.slice(-500)}`))));
        }),
    ),
  );
  const wallMs = performance.now() - started;
  // The copies reach the disk before they are counted (and before the next measurement starts).
  spawnSync('sync');
  return { wallMs, syncedMs: performance.now() - started, bytes: duBytes(into) };
}

const unpackScript = join(root, 'bench/lib/unpack-once.mjs');
/** The first unpack of `reference` into an empty cache `cacheDir`, in a process of its own: time and that process's peak RSS. */
// Besides the peak (VmHWM at exit), its RSS is read every 50 ms: the highest reading in the first and in the
// second half of its life shows whether it grows as the bytes unpacked grow.
export async function unpackFigure({ reference, cacheDir, resolveOnly = false }) {
  const samples = [];
  let timer;
  const sample = (pid) => {
    try {
      samples.push(Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      // Gone.
    }
  };
  const args = [unpackScript, reference, cacheDir, ...(resolveOnly ? ['--resolve-only'] : [])];
  const result = await run(process.execPath, args, { measureRss: true, onSpawn: (pid) => (timer = setInterval(() => sample(pid), 50)) });
  clearInterval(timer);
  if (result.code !== 0) throw new Error(`unpack of ${reference} exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const report = JSON.parse(result.stdout);
  const half = Math.floor(samples.length / 2);
  const halves = [samples.slice(0, half), samples.slice(half)].map((part) => Math.max(0, ...part));
  return {
    ...report,
    peakKiB: result.maxRssKiB,
    halvesKiB: halves,
    cpuMs: result.cpuMs,
    rootBytes: resolveOnly ? 0 : duBytes(report.root),
  };
}

/** The unpacked root of `reference` in the cache `cacheDir` (unpacked there by the warm-up): what `cp -a` copies. */
export async function imageRoot(reference, cacheDir) {
  const { resolveImage, unpackImage } = await import('../../packages/images/dist/index.js');
  return (await unpackImage(await resolveImage(reference, { cacheDir, cwd: root }), { cacheDir })).root;
}
