import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from './index.js';
import type { CliIo } from './run-cli.js';
import { runCli } from './run-cli.js';

afterAll(cleanupTempDirs);

function captureIo(env: NodeJS.ProcessEnv = {}, signal?: AbortSignal): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: { PATH: process.env.PATH, ...env },
    ...(signal ? { signal } : {}),
    out: () => out,
    err: () => err,
  };
}

async function script(text: string): Promise<string> {
  const file = join(await createTempDir('delta-cli-'), 'steps.yaml');
  await writeFile(file, text);
  return file;
}

/** A child that asks the fake model once, writes what it got to `output`, and exits 3. */
function askOnce(output: string): string[] {
  const code = `
    const response = await fetch(process.env.DELTA_BASE_URL + '/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.DELTA_API_KEY },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = await response.json();
    require('node:fs').writeFileSync(${JSON.stringify(output)}, JSON.stringify({
      status: response.status, content: body.choices?.[0]?.message?.content ?? body.error?.message,
      baseUrl: process.env.DELTA_BASE_URL, apiKey: process.env.DELTA_API_KEY,
    }));
    process.exit(3);`;
  return [process.execPath, '--input-type=commonjs', '-e', `(async () => { ${code} })()`];
}

describe('runCli', () => {
  it('prints help', async () => {
    const io = captureIo();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.out()).toMatch(/^delta-fake-llm: a scripted OpenAI-compatible/);
    expect(io.out()).toMatch(/--script FILE/);
  });

  it.each([
    [[], /missing --script FILE/],
    [['--script', 'a.yaml', '--port', 'x'], /--port must be a whole number from 0 to 65535, got 'x'/],
    [['--script', 'a.yaml', '--bogus'], /Unknown option '--bogus'/],
    [['--script', 'a.yaml', '--'], /nothing to run after '--'/],
  ])('exits 2 on bad usage %j', async (argv, expected) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.err()).toMatch(expected);
    expect(io.err()).toMatch(/Run 'delta-fake-llm --help'/);
  });

  it('exits 2 naming the file, the step and the field of an invalid script', async () => {
    const file = await script('- content: hi\n- tool_calls: [{ arguments: {} }]\n');
    const io = captureIo();
    expect(await runCli(['--script', file], io)).toBe(2);
    expect(io.err()).toBe(
      `delta-fake-llm: invalid script: ${file}: step 1, field 'tool_calls[0].name': Invalid input: expected string, received undefined\n`,
    );
    const missing = captureIo();
    expect(await runCli(['--script', '/nonexistent/steps.yaml'], missing)).toBe(2);
    expect(missing.err()).toMatch(/\/nonexistent\/steps.yaml: cannot read the script: the file does not exist/);
  });

  it('serves until stopped, printing DELTA_BASE_URL on stdout', async () => {
    const file = await script('- content: served\n');
    const stop = new AbortController();
    const io = captureIo({}, stop.signal);
    const exit = runCli(['--script', file], io);
    await expect.poll(() => io.out()).toMatch(/^DELTA_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
    const baseUrl = io.out().trim().slice('DELTA_BASE_URL='.length);
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(((await response.json()) as any).choices[0].message.content).toBe('served');
    stop.abort('SIGINT');
    expect(await exit).toBe(0);
    await expect(fetch(`${baseUrl}/models`)).rejects.toThrow();
  });

  it("runs a command against the server and exits with the command's exit code", async () => {
    const file = await script('- content: from the script\n');
    const output = join(await createTempDir('delta-cli-out-'), 'out.json');
    const io = captureIo();
    expect(await runCli(['--script', file, '--', ...askOnce(output)], io)).toBe(3);
    const seen = JSON.parse(await readFile(output, 'utf8'));
    expect(seen).toMatchObject({ status: 200, content: 'from the script', apiKey: 'fake-key' });
    expect(seen.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('keeps a DELTA_API_KEY that is already set, and the server requires it', async () => {
    const file = await script('- content: keyed\n');
    const output = join(await createTempDir('delta-cli-out-'), 'out.json');
    expect(await runCli(['--script', file, '--', ...askOnce(output)], captureIo({ DELTA_API_KEY: 'sk-mine' }))).toBe(3);
    expect(JSON.parse(await readFile(output, 'utf8'))).toMatchObject({ status: 200, content: 'keyed', apiKey: 'sk-mine' });
  });

  it('gives the command a key when DELTA_API_KEY is exported but empty', async () => {
    const file = await script('- content: blank\n');
    const output = join(await createTempDir('delta-cli-out-'), 'out.json');
    expect(await runCli(['--script', file, '--', ...askOnce(output)], captureIo({ DELTA_API_KEY: '' }))).toBe(3);
    expect(JSON.parse(await readFile(output, 'utf8'))).toMatchObject({ status: 200, content: 'blank', apiKey: 'fake-key' });
  });

  it('exits 127 when the command does not exist', async () => {
    const file = await script('- content: x\n');
    const io = captureIo();
    expect(await runCli(['--script', file, '--', 'delta-no-such-command-xyz'], io)).toBe(127);
    expect(io.err()).toMatch(/cannot run 'delta-no-such-command-xyz': command not found/);
  });
});
