import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMetadata, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm, modelEnv } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { startDelta } from './test-processes.test-support.js';

// A TASKS file and its workspace directories are input the engine does not trust (a tool of another
// batch may have written them), and one --out holds one batch at a time.

let llm: FakeLlm;
beforeAll(async () => {
  // One tool call (`work`), then an answer.
  llm = await startFakeLlm({
    script: (request) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      if (messages.some((message) => message.role === 'tool')) return { content: 'done' };
      return { tool_calls: [{ name: 'work', arguments: {} }] };
    },
  });
});
/** Release files to write after each test: a blocked tool never outlives its test, whatever failed. */
const releases: string[] = [];
afterEach(async () => {
  for (const file of releases.splice(0)) writeFileSync(file, '');
  await cleanupTempDirs();
});
afterAll(() => llm.close());

async function setup(toolScript = 'true') {
  const directory = await createTempDir();
  const script = join(directory, 'work.sh');
  writeFileSync(script, `${toolScript}\n`);
  const agent = await createTempAgent({
    agentYaml: {
      name: 'hostile-input',
      llm: { model: 'fake-model', max_retries: 0 },
      // Unsandboxed: a tool killed with its batch would otherwise go with it; here the test releases it.
      sandbox: { mode: 'off' },
      tools: [{ name: 'work', description: 'Do the work', exec: `sh ${script}` }],
    },
  });
  releases.push(join(directory, 'release'));
  return {
    directory,
    agent,
    tasksFile: join(directory, 'tasks.jsonl'),
    out: join(directory, 'out'),
    env: modelEnv(llm),
  };
}

async function waitForFile(file: string): Promise<void> {
  await expect.poll(() => existsSync(file), { timeout: 60_000, interval: 20, message: `${file} did not appear` }).toBe(true);
}

describe('task files', () => {
  it('a file name with NUL, an absolute path or .. is refused when the TASKS file loads: exit 2 naming the file, line and field', async () => {
    const { agent, tasksFile, out, env } = await setup();
    for (const [name, problem] of [
      ['a\u0000b', 'contains a NUL character'],
      ['/etc/x', 'is not inside the workspace'],
      ['a/../../x', 'is not inside the workspace'],
    ] as const) {
      writeFileSync(tasksFile, `{"id": "ok", "message": "m"}\n${JSON.stringify({ id: 't1', message: 'm', files: { [name]: 'x' } })}\n`);
      const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
      expect(result.exitCode, name).toBe(2);
      expect(result.stderr, name).toContain(`${tasksFile}:2 (files[${JSON.stringify(name)}]): the path ${JSON.stringify(name)} ${problem}`);
      expect(result.stderr, name).not.toContain('    at ');
      expect(result.stderr, name).not.toContain('\u0000');
      expect(existsSync(out), name).toBe(false);
    }
  });

  it('files: never writes through a symlink of the task workspace directory (sub -> outside): exit 2, nothing written outside', async () => {
    const { directory, agent, tasksFile, out, env } = await setup();
    const outside = join(directory, 'outside');
    mkdirSync(outside);
    const workspace = join(directory, 'task-workspace');
    mkdirSync(workspace);
    symlinkSync(outside, join(workspace, 'sub'));
    symlinkSync(join(outside, 'victim.txt'), join(workspace, 'victim.txt'));
    for (const name of ['sub/x', 'victim.txt']) {
      writeFileSync(tasksFile, `${JSON.stringify({ id: 't1', message: 'm', workspace: 'task-workspace', files: { [name]: 'pwned' } })}\n`);
      const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
      expect(result.exitCode, name).toBe(2);
      expect(result.stderr, name).toContain(`${tasksFile}:1 (files[${JSON.stringify(name)}]):`);
      expect(result.stderr, name).toContain('a symbolic link');
      expect(result.stderr, name).not.toContain('    at ');
    }
    expect(existsSync(join(outside, 'x'))).toBe(false);
    expect(existsSync(join(outside, 'victim.txt'))).toBe(false);
  });

  it('a symlink in a task workspace directory is copied as the same link, and the run completes', async () => {
    const { directory, agent, tasksFile, out, env } = await setup();
    const outside = join(directory, 'outside');
    mkdirSync(outside);
    const workspace = join(directory, 'task-workspace');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    writeFileSync(join(workspace, 'src', 'main.c'), 'int main;\n');
    symlinkSync('src/main.c', join(workspace, 'relative'));
    symlinkSync(outside, join(workspace, 'sub'));
    writeFileSync(
      tasksFile,
      `${JSON.stringify({ id: 't1', message: 'm', workspace: 'task-workspace', files: { 'src/extra.txt': 'e' } })}\n`,
    );
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const workDir = join(out, 't1', 'fake-model', '1');
    expect(readMetadata(runPaths(workDir, 'run-1').metadata).status).toBe('COMPLETED');
    expect(readFileSync(join(workDir, 'src', 'main.c'), 'utf8')).toBe('int main;\n');
    expect(readFileSync(join(workDir, 'src', 'extra.txt'), 'utf8')).toBe('e');
    // Verbatim: a relative link stays relative (it points into the copy), an absolute one is kept as written.
    expect(lstatSync(join(workDir, 'relative')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(workDir, 'relative'))).toBe('src/main.c');
    expect(readlinkSync(join(workDir, 'sub'))).toBe(outside);
  });
});

describe('one batch per --out', () => {
  it('a second delta batch on the same --out is refused (exit 2, naming the first) while the first runs, which completes', async () => {
    const { directory, agent, tasksFile, out, env } = await setup(
      `touch "$(dirname "$0")/started"; while [ ! -e "$(dirname "$0")/release" ]; do sleep 0.05; done`,
    );
    writeFileSync(tasksFile, `${JSON.stringify({ id: 't1', message: 'm' })}\n${JSON.stringify({ id: 't2', message: 'm' })}\n`);
    const first = startDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--concurrency', '1'], env);
    await waitForFile(join(directory, 'started'));
    const second = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain(`Another delta batch is running on ${out} (pid ${first.child.pid} on `);
    expect(second.stderr).toContain('two batches on one --out');
    expect(second.stderr).not.toContain('ENOENT');
    expect(second.stderr).not.toContain('    at ');
    writeFileSync(join(directory, 'release'), '');
    const done = await first.done;
    expect(done.stderr).toBe('');
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toContain('2 runs: 2 completed, 0 failed');
  });

  it('the lock of a batch killed with SIGKILL is taken over by the next one, which finishes the batch', async () => {
    const { directory, agent, tasksFile, out, env } = await setup(
      `touch "$(dirname "$0")/started"; while [ ! -e "$(dirname "$0")/release" ]; do sleep 0.05; done`,
    );
    writeFileSync(tasksFile, `${JSON.stringify({ id: 't1', message: 'm' })}\n`);
    const first = startDelta(['batch', tasksFile, '--agent', agent, '--out', out], env);
    await waitForFile(join(directory, 'started'));
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    expect(existsSync(join(out, '.batch', 'lock'))).toBe(true);
    writeFileSync(join(directory, 'release'), '');
    const again = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
    expect(again.stderr).toBe('');
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('1 run: 1 completed');
    expect(existsSync(join(out, '.batch', 'lock'))).toBe(false);
  });
});
