// Slow end-to-end check of what we would publish: every public package is packed with `pnpm pack`
// (which turns workspace:* into versions), the tarballs are installed together into an empty project
// with production dependencies only (npm, third-party packages from the registry, no workspace links),
// and there the two commands, a full agent run and the library-usage example are run. A dependency
// used but not declared, a file missing from `files`, or a broken `exports` map fails here. Then the CLI's
// tarball alone, as `npm install` gives it to a user who never scales out: no Redis client, and the
// commands that need one say what to install; that install is light (under 30 packages and 8 MiB, figures printed).
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir, loadScript, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { mustRun, runCommand } from './run-command.js';
import { publicPackages, REPOSITORY_ROOT } from './public-packages.js';

const LIBRARY_USAGE = join(REPOSITORY_ROOT, 'examples', 'library-usage');
const PACK = join(REPOSITORY_ROOT, 'scripts', 'pack.mjs');
const TSC = join(REPOSITORY_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let tarballs: string;
let project: string;
let server: FakeLlm | undefined;
const packages = publicPackages();

beforeAll(async () => {
  tarballs = await createTempDir('delta-tarballs-');
  // The command docs/library.md gives: pnpm pack-packages --out DIR.
  const packed = await mustRun(process.execPath, [PACK, '--out', tarballs], { cwd: REPOSITORY_ROOT });
  expect(packed.stdout).toContain(`npm install ${tarballs}/*.tgz`);
  project = await createTempDir('delta-install-');
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'delta-release-check', private: true, type: 'module' }, null, 2)}\n`,
  );
  const files = readdirSync(tarballs).map((name) => join(tarballs, name));
  // One command for all tarballs: the packages depend on each other by version, and npm satisfies those
  // with the tarballs given here rather than the registry.
  await mustRun('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error', ...files], { cwd: project });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await cleanupTempDirs();
});

const modelEnvironment = () => ({
  DELTA_BASE_URL: server!.baseUrl,
  DELTA_API_KEY: 'release-check-key',
  OPENAI_API_KEY: '',
  OPENAI_BASE_URL: '',
});

describe('the packed packages, installed outside the monorepo', () => {
  it('installs every public package from its tarball, with no workspace links', () => {
    for (const entry of packages) {
      const installed = JSON.parse(readFileSync(join(project, 'node_modules', entry.name, 'package.json'), 'utf8')) as {
        version: string;
        dependencies?: Record<string, string>;
      };
      expect(installed.version).toBe(entry.version);
      for (const range of Object.values(installed.dependencies ?? {})) expect(range).not.toMatch(/^workspace:/);
    }
  });

  it('publishes no source maps', () => {
    const maps = packages.flatMap((entry) =>
      filesUnder(join(project, 'node_modules', entry.name))
        .filter((file) => file.endsWith('.map'))
        .map((file) => `${entry.name}: ${file}`),
    );
    expect(maps).toEqual([]);
  });

  it('pulls in no openai SDK: neither the engine nor the CLI needs it to run', () => {
    // package-lock.json lists every package installed, nested ones included (node_modules/x/node_modules/openai).
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const installed = Object.keys(lock.packages).filter((path) => /(^|\/)node_modules\/openai$/.test(path));
    expect(installed).toEqual([]);
    expect(existsSync(join(project, 'node_modules', 'openai'))).toBe(false);
  });

  it('answers `npx delta --version` and `npx delta-sessions --help`', async () => {
    const cli = packages.find((entry) => entry.name === '@delta/cli')!;
    const version = await mustRun('npx', ['--no-install', 'delta', '--version'], { cwd: project });
    expect(version.stdout).toContain(`delta/${cli.version}`);
    const sessions = await mustRun('npx', ['--no-install', 'delta-sessions', '--help'], { cwd: project });
    expect(sessions.stdout).toContain('$ delta-sessions <command> [options]');
  });

  it('runs an agent to completion with the installed `delta`', async () => {
    server = await startFakeLlm({ script: loadScript(join(LIBRARY_USAGE, 'agent', 'fake-llm.yaml')), apiKey: 'release-check-key' });
    cpSync(join(LIBRARY_USAGE, 'agent'), join(project, 'agent'), { recursive: true });
    const workDir = join(project, 'cli-workspace');
    const result = await runCommand(
      'npx',
      ['--no-install', 'delta', 'run', '--agent', 'agent', '-m', 'Write a note', '-w', workDir, '--json'],
      {
        cwd: project,
        env: modelEnvironment(),
      },
    );
    expect(result.stderr).not.toMatch(/Cannot find (module|package)/);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { type?: string; status?: string });
    expect(events.find((event) => event.type === 'ENGINE_END')).toMatchObject({ status: 'COMPLETED' });
    expect(readFileSync(join(workDir, 'note.txt'), 'utf8')).toBe('Delta as a library.\n');
    await server.close();
    server = undefined;
  });

  it('compiles examples/library-usage against the installed types and runs it', async () => {
    cpSync(join(LIBRARY_USAGE, 'main.ts'), join(project, 'main.ts'));
    const tsconfig = JSON.parse(readFileSync(join(LIBRARY_USAGE, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    // The project installs production dependencies only; @types/node comes from the repository.
    tsconfig.compilerOptions.typeRoots = [join(REPOSITORY_ROOT, 'node_modules', '@types')];
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    await mustRun(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });

    server = await startFakeLlm({ script: loadScript(join(LIBRARY_USAGE, 'agent', 'fake-llm.yaml')), apiKey: 'library-key' });
    const workDir = join(project, 'library-workspace');
    // The key and base URL are passed as options, not found in the environment.
    const result = await runCommand(
      process.execPath,
      ['dist/main.js', 'agent', 'Write a note', '--base-url', server.baseUrl, '--api-key', 'library-key', '--work-dir', workDir],
      { cwd: project, env: { DELTA_BASE_URL: '', DELTA_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } },
    );
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('tool write_file (exec): tee');
    expect(result.stdout).toMatch(/\] ENGINE_START\n/);
    expect(result.stdout).toContain('result SUCCESS: Delta as a library.');
    expect(result.stdout).toContain('status: COMPLETED (exit code 0)');
    expect(readFileSync(join(workDir, 'note.txt'), 'utf8')).toBe('Delta as a library.\n');
  });

  it('serves a scripted model from the installed test kit: startFakeLlm in a program, delta-fake-llm as a command', async () => {
    // A user's own regression test: the server from @delta/testkit, the agent run by the installed delta.
    cpSync(join(LIBRARY_USAGE, 'agent'), join(project, 'kit-agent'), { recursive: true });
    writeFileSync(
      join(project, 'kit.mjs'),
      [
        "import { execFile } from 'node:child_process';",
        "import { promisify } from 'node:util';",
        "import { loadScript, startFakeLlm } from '@delta/testkit';",
        "const server = await startFakeLlm({ script: loadScript('kit-agent/fake-llm.yaml') });",
        'try {',
        // Not execFileSync: the server answers from this process's event loop.
        "  await promisify(execFile)('npx', ['--no-install', 'delta', 'run', '--agent', 'kit-agent', '-m', 'Write a note', '-w', 'kit-workspace', '-q'], {",
        "    env: { ...process.env, DELTA_BASE_URL: server.baseUrl, DELTA_API_KEY: 'k' },",
        '  });',
        "  console.log(`requests: ${server.requests.length}, first user message: ${server.requests[0].body.messages.find((m) => m.role === 'user').content}`);",
        '} finally {',
        '  await server.close();',
        '}',
      ].join('\n'),
    );
    const program = await runCommand(process.execPath, ['kit.mjs'], {
      cwd: project,
      env: { DELTA_BASE_URL: '', DELTA_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
    });
    expect(program.exitCode, program.stderr).toBe(0);
    expect(program.stdout).toMatch(/requests: [1-9]\d*, first user message: Write a note\n/);
    expect(readFileSync(join(project, 'kit-workspace', 'note.txt'), 'utf8')).toBe('Delta as a library.\n');

    const command = await runCommand(
      'npx',
      [
        '--no-install',
        'delta-fake-llm',
        '--script',
        'kit-agent/fake-llm.yaml',
        '--',
        'npx',
        '--no-install',
        'delta',
        'run',
        '--agent',
        'kit-agent',
        '-m',
        'Write a note',
        '-w',
        'bin-workspace',
      ],
      { cwd: project, env: { DELTA_BASE_URL: '', DELTA_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } },
    );
    expect(command.exitCode, command.stderr).toBe(0);
    expect(readFileSync(join(project, 'bin-workspace', 'note.txt'), 'utf8')).toBe('Delta as a library.\n');
  });
});

/** The packages in a node_modules tree, at any depth (a copy nested under another package counts). */
function installedPackages(nodeModules: string): Set<string> {
  const found = new Set<string>();
  const visit = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const names = entry.name.startsWith('@')
        ? readdirSync(join(directory, entry.name)).map((inner) => `${entry.name}/${inner}`)
        : [entry.name];
      for (const name of names) {
        found.add(name);
        if (existsSync(join(directory, name, 'node_modules'))) visit(join(directory, name, 'node_modules'));
      }
    }
  };
  visit(nodeModules);
  return found;
}

/** Every file under a directory, relative to it, links not followed. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)));
}

/** What a tree takes: the bytes of its files, and the disk they and its directories use (as `du` counts it). */
function treeSize(directory: string): { bytes: number; disk: number } {
  let bytes = 0;
  let disk = lstatSync(directory).blocks * 512;
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    const stat = lstatSync(join(entry.parentPath, entry.name));
    if (!entry.isDirectory()) bytes += stat.size;
    disk += stat.blocks * 512;
  }
  return { bytes, disk };
}

const MIB = 1024 * 1024;

describe('the packed CLI alone, without the optional scale-out and OpenTelemetry packages', () => {
  const SCALE_OUT = 'npm install bullmq@6.7.0 ioredis@6.0.0';
  let alone: string;

  beforeAll(async () => {
    const cli = packages.find((entry) => entry.name === '@delta/cli')!;
    alone = await createTempDir('delta-cli-alone-');
    writeFileSync(join(alone, 'package.json'), `${JSON.stringify({ name: 'delta-cli-alone', private: true }, null, 2)}\n`);
    // --offline: the tarball and npm's cache (the install above filled it) are all it takes.
    await mustRun(
      'npm',
      ['install', '--offline', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error', join(tarballs, `delta-cli-${cli.version}.tgz`)],
      { cwd: alone },
    );
    cpSync(join(LIBRARY_USAGE, 'agent'), join(alone, 'agent'), { recursive: true });
    writeFileSync(join(alone, 'tasks.jsonl'), '{"id": "note", "message": "Write a note"}\n');
  }, 180_000);

  it('installs no Redis client, no BullMQ and no OpenTelemetry package', () => {
    const installed = installedPackages(join(alone, 'node_modules'));
    expect(installed.has('@delta/cli')).toBe(true);
    const optional = [...installed].filter((name) => /^(bullmq|ioredis|redis|@redis\/.*|@opentelemetry\/.*)$/.test(name));
    expect(optional).toEqual([]);
  });

  it('is a light install: under 30 packages and 8 MiB', () => {
    const installed = installedPackages(join(alone, 'node_modules'));
    const { bytes, disk } = treeSize(join(alone, 'node_modules'));
    const figures = `npm install of the packed CLI: ${installed.size} packages, ${(bytes / MIB).toFixed(2)} MiB of files, ${(disk / MIB).toFixed(2)} MiB on disk`;
    console.log(figures);
    expect(installed.size, figures).toBeLessThan(30);
    expect(bytes, figures).toBeLessThan(8 * MIB);
    expect(disk, figures).toBeLessThan(8 * MIB);
  });

  it('runs an agent to completion with `delta run`', async () => {
    server = await startFakeLlm({ script: loadScript(join(LIBRARY_USAGE, 'agent', 'fake-llm.yaml')), apiKey: 'release-check-key' });
    const workDir = join(alone, 'run-workspace');
    const result = await runCommand(
      'npx',
      ['--no-install', 'delta', 'run', '--agent', 'agent', '-m', 'Write a note', '-w', workDir, '-q'],
      {
        cwd: alone,
        env: modelEnvironment(),
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(join(workDir, 'note.txt'), 'utf8')).toBe('Delta as a library.\n');
    await server.close();
    server = undefined;
  });

  it('`delta batch --queue` and `delta worker` exit 2 with the npm install that adds the scale-out packages', async () => {
    const batch = await runCommand(
      'npx',
      ['--no-install', 'delta', 'batch', 'tasks.jsonl', '--agent', 'agent', '--out', 'results', '--queue', 'redis://127.0.0.1:1'],
      { cwd: alone },
    );
    expect(batch.stderr).toContain(`Error: delta batch --queue needs the scale-out packages, which are not installed: ${SCALE_OUT}\n`);
    expect(batch.stderr).not.toMatch(/Cannot find (module|package)|\n\s+at /);
    expect(batch.exitCode).toBe(2);
    // Stopped before anything was recorded.
    expect(existsSync(join(alone, 'results'))).toBe(false);
    const worker = await runCommand('npx', ['--no-install', 'delta', 'worker', '--queue', 'redis://127.0.0.1:1', '--root', alone], {
      cwd: alone,
    });
    expect(worker.stderr).toContain(`Error: delta worker needs the scale-out packages, which are not installed: ${SCALE_OUT}\n`);
    expect(worker.exitCode).toBe(2);
  });

  it('`delta export otel` and a run with OTEL_EXPORTER_OTLP_ENDPOINT exit 2 with the npm install that adds OpenTelemetry', async () => {
    const otel =
      /needs the OpenTelemetry packages, which are not installed: npm install @opentelemetry\/api@1\.9\.1 @opentelemetry\/core@\S+ @opentelemetry\/exporter-trace-otlp-http@\S+ @opentelemetry\/resources@\S+ @opentelemetry\/sdk-trace-base@\S+\n/;
    const exported = await runCommand(
      'npx',
      ['--no-install', 'delta', 'export', 'otel', '-w', 'run-workspace', '--endpoint', 'http://127.0.0.1:1'],
      { cwd: alone },
    );
    expect(exported.stderr).toMatch(otel);
    expect(exported.exitCode).toBe(2);
    const live = await runCommand('npx', ['--no-install', 'delta', 'run', '--agent', 'agent', '-m', 'Write a note', '-w', 'traced'], {
      cwd: alone,
      env: { DELTA_BASE_URL: 'http://127.0.0.1:1', DELTA_API_KEY: 'k', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' },
    });
    expect(live.stderr).toMatch(otel);
    expect(live.stderr).toContain('or unset OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(live.exitCode).toBe(2);
    // Refused before the run started: nothing was recorded.
    expect(existsSync(join(alone, 'traced', '.delta'))).toBe(false);
  });
});
