// Per-tool-call overhead of the sandbox: `node bench/sandbox-overhead.mjs [--calls N] [--skip-build]` (after
// `pnpm build`). First the tool call alone: the same call (`true`, output to files, through the tool
// launcher as the engine does) with and without the run's bubblewrap sandbox, interleaved, medians and
// their difference, with the network on and off. Then as a run sees it: `delta run`'s turn per iteration
// (one trivial exec: tool each) with sandbox off and on, the figure `pnpm bench` prints too. Timings only;
// nothing here is a test. Quote the machine's load (uptime) with the figures.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandLauncher, probeBubblewrap, RunSandbox, runCommand } from '../packages/command-runner/dist/index.js';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 200;
const here = fileURLToPath(new URL('.', import.meta.url));
mkdirSync(join(here, '.work'), { recursive: true });
const workspace = mkdtempSync(join(here, '.work', 'sandbox-overhead-'));
mkdirSync(join(workspace, '.delta', 'io'), { recursive: true });

const probe = probeBubblewrap();
if (!probe.ok) {
  console.error(`bubblewrap is not usable here: ${probe.problem}`);
  process.exit(1);
}
const launcher = CommandLauncher.start();
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function call(index, sandbox) {
  const started = performance.now();
  await runCommand({
    file: 'true',
    args: [],
    cwd: workspace,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdoutFile: join(workspace, '.delta', 'io', `${index}.out`),
    stderrFile: join(workspace, '.delta', 'io', `${index}.err`),
    launcher,
    ...(sandbox ? { sandbox } : {}),
  });
  return performance.now() - started;
}

for (const network of [true, false]) {
  const sandbox = RunSandbox.start(
    { mode: 'workspace-write', network, workspace, protectedPaths: [join(workspace, '.delta')], visiblePaths: [], writablePaths: [] },
    probe.path,
  );
  // Warm-up: the sandbox's start, the launcher, the page cache.
  for (let index = 0; index < 10; index += 1) {
    await call(`warm-${index}`, sandbox);
    await call(`warm-plain-${index}`, undefined);
  }
  const plain = [];
  const boxed = [];
  for (let index = 0; index < calls; index += 1) {
    plain.push(await call(`plain-${index}`, undefined));
    boxed.push(await call(`boxed-${index}`, sandbox));
  }
  await sandbox.stop();
  const [off, on] = [median(plain), median(boxed)];
  console.log(
    `network ${network ? 'on ' : 'off'}: per tool call, median of ${calls}: unsandboxed ${off.toFixed(2)} ms, sandboxed ${on.toFixed(2)} ms, overhead ${(on - off).toFixed(2)} ms (target: at most 2 ms)`,
  );
}
await launcher.close();
rmSync(workspace, { recursive: true, force: true });

if (!process.argv.includes('--skip-build')) {
  const { buildForBench } = await import('./lib/build.mjs');
  buildForBench((text) => process.stderr.write(`bench: ${text}\n`));
}
const { benchSandboxOverhead } = await import('./lib/sandbox-overhead.mjs');
const engine = await benchSandboxOverhead(300);
console.log(
  `delta run, engine turn per iteration (one tool call), median of 51-300: sandbox off ${engine.off.toFixed(2)} ms, on ${engine.on.toFixed(2)} ms, overhead ${(engine.on - engine.off).toFixed(2)} ms (target: at most 2 ms)`,
);
