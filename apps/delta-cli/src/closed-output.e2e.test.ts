import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, runProcess, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { readJournal, readMetadata, runPaths } from '@delta/journal';
import { deltaEnv, latestRunDir } from './test-processes.test-support.js';
import { DELTA_BIN, runDelta } from './test-support.js';

/** Longer than a pipe holds (64 KiB) plus what `head` reads at once: `delta log | head -1` must meet a closed pipe. */
const LONG_THOUGHT = `I will think at length. ${'All work and no play. '.repeat(20_000)}`;

/** A tool that waits until a file appears: the run goes on only once the reader of its output is gone. */
const WAIT_TOOL = '#!/bin/sh\n[ "$1" = -- ] && shift\nuntil [ -e "$1" ]; do sleep 0.01; done\necho "$1 is there"\n';

const servers: FakeLlm[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await cleanupTempDirs();
});

/** A fake model for one run; its address in the environment delta gets. */
async function fakeModel(gone: string): Promise<Record<string, string>> {
  const server = await startFakeLlm({ script: fiveSteps(gone) });
  servers.push(server);
  return { DELTA_API_KEY: 'test-key', DELTA_BASE_URL: server.baseUrl };
}

/** A five-step run: the first tool waits for `gone`, then three more tool calls, then the answer. */
function fiveSteps(gone: string) {
  return [
    { content: LONG_THOUGHT, tool_calls: [{ name: 'wait_for', arguments: { file: gone } }] },
    { content: 'Step two.', tool_calls: [{ name: 'say', arguments: { text: 'two' } }] },
    { content: 'Step three.', tool_calls: [{ name: 'say', arguments: { text: 'three' } }] },
    { content: 'Step four.', tool_calls: [{ name: 'say', arguments: { text: 'four' } }] },
    { content: 'All five steps are done.' },
  ];
}

async function agentWithTools(): Promise<string> {
  return createTempAgent({
    agentYaml: {
      name: 'closed-output',
      llm: { model: 'test-model' },
      // Unsandboxed: wait.sh waits for a file the test makes under /tmp, which the sandbox replaces.
      sandbox: { mode: 'off' },
      tools: [
        { name: 'wait_for', description: 'Wait for a file', exec: '${AGENT_HOME}/wait.sh -- ${file}' },
        { name: 'say', description: 'Say something', exec: 'printf -- %s ${text}' },
      ],
    },
    files: { 'wait.sh': { content: WAIT_TOOL, mode: 0o755 } },
  });
}

interface PipelineResult {
  /** delta's own exit code. */
  status: number;
  /** What delta wrote to stderr (when it was not sent down the pipe too). */
  stderr: string;
  /** The one line the reader took. */
  first: string;
}

/**
 * Runs `delta ARGS` as the writer of a real shell pipeline whose reader takes one line (or none) and
 * goes away: then closes its end of the pipe and creates `$OUT/gone`. `stderr: 'pipe'` sends delta's
 * stderr down the pipe too (`2>&1`). `reader: 'none'` makes the reader go before delta starts, so its
 * very first write meets a closed pipe whatever its size.
 */
async function pipeline(
  args: string[],
  options: { out: string; env?: Record<string, string>; stderr?: 'file' | 'pipe'; reader?: 'head' | 'none' },
): Promise<PipelineResult> {
  const redirect = options.stderr === 'pipe' ? '2>&1' : '2>"$OUT/stderr"';
  const writer = `"$@" ${redirect}; echo $? >"$OUT/status"`;
  const script =
    options.reader === 'none'
      ? `{ until [ -e "$OUT/gone" ]; do sleep 0.01; done; ${writer}; } | { exec 0<&-; : >"$OUT/gone"; }`
      : `{ ${writer}; } | { head -1 >"$OUT/first"; exec 0<&-; : >"$OUT/gone"; }`;
  const result = await runProcess('sh', ['-c', script, 'sh', process.execPath, DELTA_BIN, ...args], {
    env: deltaEnv({ ...options.env, OUT: options.out }),
  });
  expect(result.stderr).toBe('');
  const read = (name: string) => (existsSync(join(options.out, name)) ? readFileSync(join(options.out, name), 'utf8') : '');
  return { status: Number(read('status').trim()), stderr: read('stderr'), first: read('first') };
}

describe('a run whose output is closed', () => {
  it('delta run ... 2>&1 | head -1: the run goes on to COMPLETED and says so in metadata.json', async () => {
    const out = await createTempDir('pipe-');
    const env = await fakeModel(join(out, 'gone'));
    const agent = await agentWithTools();
    const work = join(await createTempDir('work-'), 'ws');

    const result = await pipeline(['run', '--agent', agent, '-m', 'Five steps', '-w', work], { out, env, stderr: 'pipe' });
    expect(result.first).toMatch(/^run \d{8}_\d{6}_[a-z0-9]{6} of agent closed-output in /);
    expect(result.status).toBe(0);
    const runDir = latestRunDir(work)!;
    expect(readMetadata(join(runDir, 'metadata.json'))).toMatchObject({ status: 'COMPLETED', iterations: 5, exit_code: 0 });
    const events = readJournal(join(runDir, 'journal.jsonl'));
    expect(events.filter((event) => event.type === 'ACTION_RESULT').map((event) => event.status)).toEqual(Array(4).fill('SUCCESS'));
    expect(events.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
  });

  it('delta run --json | head -1: the same, with stdout closed', async () => {
    const out = await createTempDir('pipe-');
    const env = await fakeModel(join(out, 'gone'));
    const agent = await agentWithTools();
    const work = join(await createTempDir('work-'), 'ws');

    const result = await pipeline(['run', '--agent', agent, '-m', 'Five steps', '-w', work, '--json'], { out, env });
    expect(JSON.parse(result.first)).toMatchObject({ seq: 1, type: 'ENGINE_START' });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('COMPLETED');
    expect(result.stderr).not.toMatch(/EPIPE|Error/);
    const runDir = latestRunDir(work)!;
    expect(readMetadata(join(runDir, 'metadata.json'))).toMatchObject({ status: 'COMPLETED', iterations: 5 });
    expect(readJournal(join(runDir, 'journal.jsonl')).at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
  });
});

describe('commands that print, into a pipe that closes', () => {
  let work: string;
  let agent: string;
  let runId: string;

  beforeAll(async () => {
    const ready = await createTempDir('ready-');
    writeFileSync(join(ready, 'gone'), '');
    const env = await fakeModel(join(ready, 'gone'));
    agent = await agentWithTools();
    work = join(await createTempDir('work-'), 'ws');
    const result = await runDelta(['run', '--agent', agent, '-m', 'Five steps', '-w', work, '-q'], { env });
    expect(result.exitCode).toBe(0);
    runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
  }, 60_000);

  const commands: Array<{ label: string; args: () => string[]; first: RegExp }> = [
    { label: 'log', args: () => ['log', '-w', work], first: /START\s+run \S+ started/ },
    { label: 'log --raw', args: () => ['log', '-w', work, '--raw'], first: /^\{"seq":1,"type":"ENGINE_START"/ },
    { label: 'show invocation 2', args: () => ['show', 'invocation', '2', '-w', work], first: /^== invocation 0002_/ },
    { label: 'view --stdout', args: () => ['view', '-w', work, '--stdout'], first: /^<!doctype html>/ },
  ];

  for (const command of commands) {
    it(`delta ${command.label} | head -1: the first line, exit 0, nothing on stderr`, async () => {
      const out = await createTempDir('pipe-');
      // The output is larger than the pipe holds: delta is still writing when head goes away.
      expect(readFileSync(runPaths(work, runId).journal, 'utf8').length).toBeGreaterThan(400_000);
      const result = await pipeline(command.args(), { out });
      expect(result.first).toMatch(command.first);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    });
  }

  for (const [label, args] of [
    ['log', () => ['log', '-w', work]],
    ['show invocation 1', () => ['show', 'invocation', '1', '-w', work]],
    ['show action 1 --stdout', () => ['show', 'action', '1', '-w', work, '--stdout']],
    ['list', () => ['list', '-w', work]],
    ['list --json', () => ['list', '-w', work, '--json']],
    ['view --stdout', () => ['view', '-w', work, '--stdout']],
    ['tool expand', () => ['tool', 'expand', agent]],
  ] as const) {
    it(`delta ${label} into a pipe already closed: exit 0, nothing on stderr`, async () => {
      const out = await createTempDir('pipe-');
      const result = await pipeline(args(), { out, reader: 'none' });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    });
  }

  it('delta log > /dev/full: the write error is reported in one line, exit 1', async () => {
    if (!existsSync('/dev/full')) {
      console.warn('SKIPPED: /dev/full does not exist on this system; the full-device output case is not tested');
      return;
    }
    const result = await runProcess('sh', ['-c', '"$@" >/dev/full', 'sh', process.execPath, DELTA_BIN, 'log', '-w', work]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^Error: cannot write to stdout: ENOSPC: no space left on device, write\n$/);
  });
});
