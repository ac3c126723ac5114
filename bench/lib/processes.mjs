import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = new URL('../../', import.meta.url).pathname;
/** The bench's own builds of the two commands (see build.mjs), each started through a bin file like the published one. */
export const deltaBin = join(root, 'apps/delta-cli/node_modules/.delta-bench/delta.js');
/** The published `delta` launcher (apps/delta-cli/bin/delta, a sh script) copied next to the bench build. */
export const deltaLauncher = join(root, 'apps/delta-cli/node_modules/.delta-bench/delta');
/** The Node flags that launcher passes (read from it), so that runs measured with a preload start like `delta` does. */
export function launcherNodeFlags() {
  const script = readFileSync(join(root, 'apps/delta-cli/bin/delta'), 'utf8');
  const match = /exec node ((?:--\S+ )*)"/.exec(script);
  return match ? match[1].trim().split(' ').filter(Boolean) : [];
}
export const sessionsBin = join(root, 'apps/delta-sessions/node_modules/.delta-bench/delta-sessions.js');
const rssPreload = new URL('./report-rss.cjs', import.meta.url).pathname;

/**
 * Runs a command to its end without blocking this process's event loop (the fake model answers from it).
 * Returns its exit code, output, wall time in ms and, with `measureRss` (Node programs only), its peak RSS
 * in KiB, its CPU time in ms, that of the children it collected (ms) and the peak RSS of its tool
 * launcher (KiB), if it started one. `onSpawn(pid)`, if given, is called once the process has started.
 */
/** The peak RSS (KiB) of the engine's tool launcher, a child named `delta-launcher`, read every 50 ms. */
function watchLauncher(pid) {
  let peakKiB = 0;
  const read = () => {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
        if (!readFileSync(`/proc/${child}/comm`, 'utf8').startsWith('delta-launcher')) continue;
        const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child}/status`, 'utf8'));
        if (match) peakKiB = Math.max(peakKiB, Number(match[1]));
      }
    } catch {
      // Gone, or no /proc.
    }
  };
  const timer = setInterval(read, 50);
  return {
    stop() {
      clearInterval(timer);
      return peakKiB || undefined;
    },
  };
}

export function run(file, args, options = {}) {
  const rssFile = options.measureRss ? join(tmpdir(), `delta-bench-rss-${process.pid}-${Date.now()}`) : undefined;
  const argv = rssFile ? ['--require', rssPreload, ...args] : args;
  const env = { ...process.env, ...options.env, ...(rssFile ? { BENCH_RSS_FILE: rssFile } : {}) };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, argv, { cwd: options.cwd ?? root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const launcher = options.measureRss ? watchLauncher(child.pid) : undefined;
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      if (stdout.length < 1_000_000) stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      if (stderr.length < 1_000_000) stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = performance.now() - started;
      const launcherRssKiB = launcher?.stop();
      let maxRssKiB;
      let cpuMs;
      let childrenCpuMs;
      if (rssFile && existsSync(rssFile)) {
        [maxRssKiB, cpuMs, childrenCpuMs] = readFileSync(rssFile, 'utf8').trim().split(' ').map(Number);
        rmSync(rssFile, { force: true });
      }
      resolve({ code, stdout, stderr, wallMs, maxRssKiB, cpuMs, childrenCpuMs, launcherRssKiB });
    });
  });
}

/** Runs a command `count` times, interleaved with the others given, and returns each one's wall times. */
export async function timeInterleaved(commands, count) {
  const times = commands.map(() => []);
  for (let round = 0; round < count; round += 1) {
    for (const [index, command] of commands.entries()) {
      const result = await run(command.file, command.args, command);
      if (result.code !== 0) throw new Error(`${command.file} ${command.args.join(' ')} exited ${result.code}: ${result.stderr}`);
      times[index].push(result.wallMs);
    }
  }
  return times;
}
