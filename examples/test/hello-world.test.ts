import { cpSync, existsSync, readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { readJournal, readMetadata } from '@delta/journal';
import { DELTA_BIN, FAKE_LLM_BIN, REPOSITORY_ROOT, expectSandbox, runProcess } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/1-basics/hello-world', () => {
  it("is also examples/hello-world, a relative link, so the root README's command keeps working", () => {
    expect(readlinkSync(join(REPOSITORY_ROOT, 'examples/hello-world'))).toBe('1-basics/hello-world');
    expect(realpathSync(join(REPOSITORY_ROOT, 'examples/hello-world'))).toBe(
      realpathSync(join(REPOSITORY_ROOT, 'examples/1-basics/hello-world')),
    );
  });

  it("runs end to end with the README's main command, against the scripted model", async () => {
    // A copy, so the test leaves the repository's example untouched.
    const agent = join(await createTempDir('hello-world-'), 'hello-world');
    cpSync(join(REPOSITORY_ROOT, 'examples/1-basics/hello-world'), agent, { recursive: true });
    const result = await runProcess(
      process.execPath,
      [
        FAKE_LLM_BIN,
        '--script',
        join(agent, 'fake-llm.yaml'),
        '--',
        process.execPath,
        DELTA_BIN,
        'run',
        '--agent',
        agent,
        '-m',
        'Greet the world',
        '-y',
      ],
      { env: { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined } },
    );
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('I wrote "Hello, World!" to hello.txt and checked that it exists.\n');

    const workspace = join(agent, 'workspaces', 'W001');
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('Hello, World!\n');
    expect(readFileSync(join(agent, 'workspaces', 'LAST_USED'), 'utf8')).toBe('W001\n');
    const runId = readFileSync(join(workspace, '.delta', 'LATEST'), 'utf8').trim();
    const runDir = join(workspace, '.delta', runId);
    expect(readMetadata(join(runDir, 'metadata.json'))).toMatchObject({ status: 'COMPLETED', iterations: 3, workspace_id: 'W001' });
    // Its tools ran sandboxed, as a user's do by default.
    expectSandbox(readJournal(join(runDir, 'journal.jsonl')));
    expect(readJournal(join(runDir, 'journal.jsonl')).map((event) => event.type)).toEqual([
      'ENGINE_START',
      'USER_MESSAGE',
      'THOUGHT',
      'ACTION_REQUEST',
      'ACTION_RESULT',
      'THOUGHT',
      'ACTION_REQUEST',
      'ACTION_RESULT',
      'THOUGHT',
      'ENGINE_END',
    ]);
    expect(readdirSync(join(runDir, 'io', 'invocations'))).toHaveLength(3);
    expect(existsSync(join(runDir, 'io', 'tool_executions', 'call_1_1', 'stdout.log'))).toBe(true);
  });

  it("replays the shipped recorded trajectory with no server at all (the README's offline demo)", async () => {
    const agent = join(await createTempDir('hello-world-'), 'hello-world');
    cpSync(join(REPOSITORY_ROOT, 'examples/1-basics/hello-world'), agent, { recursive: true });
    // Nothing listens here: a model call would fail the run.
    const env = { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, DELTA_BASE_URL: 'http://127.0.0.1:9/v1' };
    const result = await runProcess(process.execPath, [DELTA_BIN, 'replay', '-w', join(agent, 'recorded'), '--agent', agent, '-q'], {
      env,
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("start state: the same as the recorded run's");
    expect(result.stdout).toContain('identical: 3 model calls, every request and tool result as recorded');
    // The tools ran for real in a fresh workspace of the agent's replays (apart from its workspaces).
    expect(readFileSync(join(agent, 'replays', 'R001', 'hello.txt'), 'utf8')).toBe('Hello, World!\n');

    // Without --agent, the recording names an agent directory of another checkout: said, not guessed.
    const moved = await runProcess(process.execPath, [DELTA_BIN, 'replay', '-w', join(agent, 'recorded')], { env });
    expect(moved.exitCode).toBe(2);
    expect(moved.stderr).toContain('was made by the agent in /path/to/delta-engine/examples/1-basics/hello-world, which is not here');
    expect(moved.stderr).toContain('--agent DIR');
  });

  it('serves the shipped recording to a live run with delta-fake-llm --from-run, which logs (--log) the recorded requests', async () => {
    const agent = join(await createTempDir('hello-world-'), 'hello-world');
    cpSync(join(REPOSITORY_ROOT, 'examples/1-basics/hello-world'), agent, { recursive: true });
    const recordedRun = join(agent, 'recorded', '.delta', 'greet');
    const log = join(agent, 'requests.jsonl');
    const result = await runProcess(
      process.execPath,
      [
        FAKE_LLM_BIN,
        '--from-run',
        recordedRun,
        '--log',
        log,
        '--',
        process.execPath,
        DELTA_BIN,
        'run',
        '--agent',
        agent,
        '-m',
        'Greet the world',
        '-y',
      ],
      { env: { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined } },
    );
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('I wrote "Hello, World!" to hello.txt and checked that it exists.\n');
    // The live run sent what the recorded run sent: its first request, as delta-fake-llm logged it.
    const logged = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { body: string });
    expect(logged).toHaveLength(3);
    const recordedRequest = readFileSync(join(recordedRun, 'io', 'invocations', '0001_1a71e1', 'request.json'), 'utf8');
    expect(JSON.parse(logged[0]!.body)).toEqual(JSON.parse(recordedRequest));
  });
});
