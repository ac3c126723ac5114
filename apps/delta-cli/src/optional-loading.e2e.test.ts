// Heavy optional capabilities load only when used: a Node loader hook records every module the `delta`
// process itself loads (not its tools' or MCP servers'), and each command is held to what it needs.
import { tmpdir } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { runDelta } from './test-support.js';

const require = createRequire(import.meta.url);
const FILESYSTEM_SERVER = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');

const HEAVY = {
  // The MCP client is our own (no SDK): its chunk, loaded on demand.
  mcp: '/apps/delta-cli/dist/mcp-servers-',
  bullmq: '/node_modules/bullmq/',
  ioredis: '/node_modules/ioredis/',
  opentelemetry: '/node_modules/@opentelemetry/',
} as const;
type Heavy = keyof typeof HEAVY;

afterEach(() => cleanupTempDirs());

/** Runs delta with a loader hook; returns its result and which heavy packages its own process loaded. */
async function loadedBy(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const directory = await createTempDir('loaded-');
  const record = join(directory, 'loaded.txt');
  writeFileSync(record, '');
  writeFileSync(
    join(directory, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\n" +
      'export async function load(url, context, next) {\n' +
      '  appendFileSync(process.env.DELTA_TEST_LOADED, `${process.pid} ${url}\\n`);\n' +
      '  return next(url, context);\n}\n',
  );
  writeFileSync(
    join(directory, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(directory, 'hooks.mjs')).href)});\n`,
  );
  let pid = 0;
  const result = await runDelta(args, {
    ...(cwd === undefined ? {} : { cwd }),
    env: { ...env, DELTA_TEST_LOADED: record, NODE_OPTIONS: `--import ${join(directory, 'register.mjs')}` },
    onSpawn: (spawned) => {
      pid = spawned;
    },
  });
  const urls = readFileSync(record, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${pid} `));
  const heavy = (Object.keys(HEAVY) as Heavy[]).filter((name) => urls.some((line) => line.includes(HEAVY[name])));
  return { result, urls, heavy };
}

describe('what each command loads', () => {
  it('`delta run` of an agent without MCP servers loads no MCP client, BullMQ, ioredis, OpenTelemetry or HTML viewer', async () => {
    const llm = await startFakeLlm({ script: [{ content: 'Done.' }] });
    try {
      const agent = await createTempAgent();
      const work = join(await createTempDir('loaded-work-'), 'w');
      const { result, urls, heavy } = await loadedBy(['run', '--agent', agent, '-w', work, '-m', 'Say done', '-q'], {
        DELTA_API_KEY: 'k',
        DELTA_BASE_URL: llm.baseUrl,
      });
      expect(result.exitCode, result.stderr).toBe(0);
      // The hook saw the run: the engine's chunk was loaded through it.
      expect(urls.some((line) => line.includes('/apps/delta-cli/dist/'))).toBe(true);
      expect(heavy).toEqual([]);
      // Nor the HTML viewer's code (delta view's chunks).
      expect(urls.filter((line) => /\/dist\/(view-command|write-batch-view)-/.test(line))).toEqual([]);
    } finally {
      await llm.close();
    }
  });

  it('`delta tool expand` of an agent with an MCP server loads the MCP client, and nothing else heavy', async () => {
    const agent = await createTempAgent({
      agentYaml: {
        name: 'mcp-loaded',
        llm: { model: 'm' },
        // The server is a Node program too: without the hook (whose files its private /tmp hides).
        mcp_servers: [
          {
            name: 'files',
            command: process.execPath,
            args: [FILESYSTEM_SERVER, '${CWD}'],
            env: { NODE_OPTIONS: '' },
            tools: ['list_directory'],
          },
        ],
      },
    });
    const cwd = await createTempDir('loaded-cwd-');
    const { result, heavy } = await loadedBy(['tool', 'expand', agent, '--json'], {}, cwd);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(heavy).toEqual(['mcp']);
  });

  it('`delta export otel` loads OpenTelemetry, `delta worker` BullMQ and ioredis, `delta view` the viewer', async () => {
    const llm = await startFakeLlm({ script: [{ content: 'Done.' }] });
    const work = join(await createTempDir('loaded-work-'), 'w');
    try {
      const agent = await createTempAgent();
      const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Say done', '-q'], {
        env: modelEnv(llm),
      });
      expect(run.exitCode, run.stderr).toBe(0);
    } finally {
      await llm.close();
    }
    // Nothing listens on port 1: each command fails after it has loaded what it needs.
    const exported = await loadedBy(['export', 'otel', '-w', work, '--endpoint', 'http://127.0.0.1:1'], {
      OTEL_EXPORTER_OTLP_TIMEOUT: '500',
    });
    expect(exported.result.exitCode).toBe(1);
    expect(exported.heavy).toEqual(['opentelemetry']);
    const worker = await loadedBy(['worker', '--queue', 'redis://127.0.0.1:1', '--root', tmpdir()]);
    expect(worker.result.stderr).toContain('redis://127.0.0.1:1');
    expect(worker.heavy).toEqual(['bullmq', 'ioredis']);
    const viewed = await loadedBy(['view', '-w', work, '--stdout']);
    expect(viewed.result.exitCode, viewed.result.stderr).toBe(0);
    expect(viewed.result.stdout).toContain('<html');
    expect(viewed.urls.some((line) => /\/dist\/view-command-/.test(line))).toBe(true);
    expect(viewed.heavy).toEqual([]);
  });
});
