// Large model responses (issue 18): the engine's peak RSS with a 30 MB response (text or tool arguments,
// streamed or not; target under 200 MB), and how soon after the 32 MiB cap is crossed an over-cap
// response fails the run (target within 2 s). Each case runs `delta run` once, as a real process, from
// the CLI bundled from the current sources into a private directory, against a server in this process.
//
//   node bench/large-response.mjs [--skip-build] [--only NAME]   (NAME: a case, e.g. 30MB-text, or over-cap)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { defaultContextYaml, startFakeLlm } from '@delta/testkit';
import { launcherNodeFlags, root, run } from './lib/processes.mjs';

const MB = 30_000_000;
const CAP = 32 * 1024 * 1024;
const outDir = join(root, 'apps/delta-cli/node_modules/.delta-bench-large');
const deltaJs = join(outDir, 'delta.js');
if (!process.argv.includes('--skip-build')) {
  // Its own copy, so that a parallel `pnpm build` cleaning dist/ cannot pull it away mid-run.
  const built = spawnSync('pnpm', ['exec', 'tsup', '--silent', '--out-dir', outDir], {
    cwd: join(root, 'apps/delta-cli'),
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('tsup failed in apps/delta-cli');
  writeFileSync(deltaJs, "#!/usr/bin/env node\nimport './cli.js';\n");
}
const work = join(root, 'bench', '.work', `large-response-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(work, { recursive: true });

/** The tool every case has: it counts the bytes it is given, or with `output`, prints 30,000,000 of them. */
const COUNT_TOOL = ['  - name: write_file', '    description: Count the bytes of data', '    exec: wc -c', '    stdin: data'];
const OUTPUT_TOOL = ['  - name: write_file', '    description: Print 30 MB', `    shell: yes x | head -c ${MB}`];

function agent(name, llm, output = false) {
  const home = join(work, name);
  mkdirSync(home, { recursive: true });
  const yaml = [
    `name: ${name}`,
    'llm:',
    '  model: m',
    '  max_retries: 0',
    ...Object.entries(llm).map(([key, value]) => `  ${key}: ${value}`),
    // The whole output goes back to the model (the default shows 16 KiB of it).
    ...(output ? ['max_tool_output_bytes: 67108864'] : []),
    'tools:',
    ...(output ? OUTPUT_TOOL : COUNT_TOOL),
  ].join('\n');
  writeFileSync(join(home, 'agent.yaml'), `${yaml}\n`);
  writeFileSync(join(home, 'system_prompt.md'), 'You are a test agent.\n');
  writeFileSync(
    join(home, 'context.yaml'),
    typeof defaultContextYaml === 'string' ? defaultContextYaml : JSON.stringify(defaultContextYaml),
  );
  return home;
}

async function delta(home, baseUrl, name) {
  return run(process.execPath, [...launcherNodeFlags(), deltaJs, 'run', '--agent', home, '-m', 'go', '-w', join(work, `${name}-w`)], {
    measureRss: true,
    env: { DELTA_API_KEY: 'k', DELTA_BASE_URL: baseUrl },
  });
}

/**
 * One 30 MB answer (then, after a tool call, a short one): the engine's peak RSS. With `more`, the model
 * asks for one more small tool call first, so the request that carries the large call back is followed by
 * another that carries it again (and the request record's delta against it).
 */
async function peak(name, where, stream, more = false) {
  const step = { tool_calls: [{ name: 'write_file', arguments: { data: 'small' } }] };
  // 'output': a small call whose tool prints 30 MB, which the next request carries back whole.
  const first =
    where === 'output' ? { tool_calls: [{ name: 'write_file', arguments: {} }] } : { large: { bytes: MB, in: where, tool: 'write_file' } };
  const script = [first, ...(more ? [step] : []), { content: 'done' }];
  const server = await startFakeLlm({ script });
  try {
    const result = await delta(agent(name, stream ? { stream: true } : {}, where === 'output'), server.baseUrl, name);
    if (result.code !== 0) throw new Error(`${name}: delta exited ${result.code}: ${result.stderr.slice(-2000)}`);
    return { name, peakMiB: result.maxRssKiB / 1024, wallS: result.wallMs / 1000 };
  } finally {
    await server.close();
  }
}

/** A 64 MiB answer against the default cap: the time from the server writing byte CAP+1 to the engine's exit. */
async function overCap() {
  let crossedAt;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const piece = Buffer.alloc(64 * 1024, 'x');
      response.write('{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"');
      let sent = 0;
      while (sent < 2 * CAP && !response.destroyed) {
        if (!response.write(piece)) {
          await new Promise((resolve) => {
            // Whichever comes first removes the other, so listeners do not pile up.
            const done = () => {
              response.off('drain', done).off('close', done);
              resolve();
            };
            response.on('drain', done).on('close', done);
          });
        }
        sent += piece.length;
        if (crossedAt === undefined && sent > CAP) crossedAt = performance.now();
      }
      if (!response.destroyed) response.end('"},"finish_reason":"stop"}]}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
  try {
    const started = performance.now();
    const result = await delta(agent('over-cap', {}), baseUrl, 'over-cap');
    const exitedAt = started + result.wallMs;
    const failed = result.code === 1 && result.stderr.includes('MiB limit');
    return {
      failed,
      afterCapS: (exitedAt - crossedAt) / 1000,
      peakMiB: result.maxRssKiB / 1024,
      message: result.stderr.split('\n').find((line) => line.includes('MiB limit')),
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}; node ${process.version}; runs in ${work}`,
);
for (const [name, where, stream, more] of [
  ['30MB-text', 'content', false],
  ['30MB-text-streamed', 'content', true],
  ['30MB-arguments', 'arguments', false],
  ['30MB-arguments-streamed', 'arguments', true],
  ['30MB-arguments-then-more', 'arguments', false, true],
  ['30MB-tool-output', 'output', false],
]) {
  if (only !== undefined && only !== name) continue;
  const result = await peak(name, where, stream, more);
  console.log(
    `${result.name.padEnd(25)} peak RSS ${result.peakMiB.toFixed(0).padStart(4)} MiB (target < 200 MB = 190.7 MiB)  wall ${result.wallS.toFixed(1)} s`,
  );
}
const cap = only === undefined || only === 'over-cap' ? await overCap() : undefined;
if (cap)
  console.log(
    `over-cap 64 MiB          ${cap.failed ? 'FAILED as expected' : 'DID NOT FAIL'}, exited ${cap.afterCapS.toFixed(2)} s after the cap was crossed (target < 2 s); peak RSS ${cap.peakMiB.toFixed(0)} MiB`,
  );
if (cap) console.log(`  ${cap.message}`);
console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
