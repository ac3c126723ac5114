import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from './index.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
let binary = '';
let buildDir = '';

// Build the bin the way tsup.config.ts does, but into a private directory, so this test never races
// with a `build` of dist/ that other packages' tests may be using at the same moment. It lives under
// node_modules/ so that the bundle's imports of yaml and zod resolve as they do from dist/.
beforeAll(async () => {
  buildDir = await mkdtemp(join(packageDir, 'node_modules', '.cache-delta-fake-llm-'));
  await build({
    config: false,
    entry: [join(packageDir, 'src/cli.ts')],
    format: ['esm'],
    target: 'node20',
    outDir: buildDir,
    external: ['yaml', 'zod'],
    silent: true,
  });
  binary = join(buildDir, 'cli.js');
});

afterAll(async () => {
  await rm(buildDir, { recursive: true, force: true });
  await cleanupTempDirs();
});

async function exitOf(child: ChildProcess): Promise<number | null> {
  const [code] = await once(child, 'exit');
  return code as number | null;
}

describe('the delta-fake-llm bin', () => {
  it('is the bundle of src/cli.ts, reached from package.json through the committed shim', async () => {
    const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ 'delta-fake-llm': './bin/delta-fake-llm.js' });
    const shim = join(packageDir, 'bin/delta-fake-llm.js');
    expect(await readFile(shim, 'utf8')).toContain("import('../dist/cli.js')");
    expect((await stat(shim)).mode & 0o111).not.toBe(0);
    expect(await readFile(join(packageDir, 'tsup.config.ts'), 'utf8')).toContain("'src/cli.ts'");
    expect((await readFile(binary, 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('serves until SIGTERM, printing DELTA_BASE_URL once listening', async () => {
    const file = join(await createTempDir('delta-bin-'), 'steps.yaml');
    await writeFile(file, '- content: from the bin\n');
    const child = spawn(binary, ['--script', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    expect(line.toString()).toMatch(/^DELTA_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
    const baseUrl = line.toString().trim().slice('DELTA_BASE_URL='.length);
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(((await response.json()) as any).choices[0].message.content).toBe('from the bin');
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
  });

  it("runs a command with DELTA_BASE_URL and DELTA_API_KEY and exits with the command's code", async () => {
    const directory = await createTempDir('delta-bin-');
    const file = join(directory, 'steps.json');
    await writeFile(file, JSON.stringify({ steps: [{ content: 'ok' }] }));
    const script = `process.stdout.write(process.env.DELTA_BASE_URL + ' ' + process.env.DELTA_API_KEY); process.exit(7)`;
    const { DELTA_API_KEY: _ignored, ...env } = process.env;
    const child = spawn(binary, ['--script', file, '--', process.execPath, '-e', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await exitOf(child)).toBe(7);
    expect(output).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1 fake-key$/);
  });

  it('exits 2 naming the file and the step of an invalid script', async () => {
    const file = join(await createTempDir('delta-bin-'), 'bad.yaml');
    await writeFile(file, '- error: { status: 200 }\n');
    const child = spawn(binary, ['--script', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(errors).toContain(`${file}: step 0, field 'error.status'`);
  });
});
