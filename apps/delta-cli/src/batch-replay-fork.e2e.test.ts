import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  type RecordedRequest,
  startFakeLlm,
  modelEnv,
} from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

// Batch runs whose task ships `files:` or a `workspace:` directory, replayed and forked with no option:
// each rebuilds its task's start state in a place of its own under OUT/.batch, never in the agent's directory.

function lastUser(request: RecordedRequest): string {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  return String(messages.findLast((message) => message.role === 'user')?.content ?? '');
}

function toolResults(request: RecordedRequest): string[] {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  return messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
}

let llm: FakeLlm;
beforeAll(async () => {
  // Reads the file the task names, then answers with what it read: a replay in an empty workspace diverges.
  llm = await startFakeLlm({
    script: (request) => {
      const results = toolResults(request);
      if (results.length === 0) return { tool_calls: [{ name: 'show', arguments: { path: lastUser(request).replace(/^Read /, '') } }] };
      return { content: `It says: ${results.at(-1)!.trim()}` };
    },
  });
});
afterEach(() => cleanupTempDirs());
afterAll(() => llm.close());

const agentYaml = {
  name: 'reader',
  llm: { model: 'fake-model', max_retries: 0 },
  tools: [{ name: 'show', description: 'Print a file', exec: 'cat -- ${path}', parameters: [{ name: 'path', type: 'string' }] }],
};

async function batchWithStartStates(): Promise<{ agent: string; out: string; source: string; env: Record<string, string> }> {
  const agent = await createTempAgent({ agentYaml });
  const directory = await createTempDir();
  const source = join(directory, 'task-ws');
  mkdirSync(join(source, 'data'), { recursive: true });
  writeFileSync(join(source, 'data', 'input.txt'), 'from the workspace directory\n');
  const tasksFile = join(directory, 'tasks.jsonl');
  const tasks = [
    { id: 't-files', message: 'Read notes.txt', files: { 'notes.txt': 'from the files field\n' } },
    { id: 't-ws', message: 'Read data/input.txt', workspace: 'task-ws' },
  ];
  writeFileSync(tasksFile, `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
  const out = join(directory, 'out');
  const env = modelEnv(llm);
  const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
  expect(batch.stderr).toBe('');
  expect(batch.exitCode).toBe(0);
  return { agent, out, source, env };
}

describe('delta replay and delta fork on a batch run', () => {
  it('replay of a run whose task has files: or workspace: is identical, in OUT/.batch/replays, even after the workspace directory changed', async () => {
    const { agent, out, source, env } = await batchWithStartStates();
    // The task's directory changes after the batch: the replay starts from what the run started from.
    writeFileSync(join(source, 'data', 'input.txt'), 'edited later\n');
    for (const [task, index] of [
      ['t-files', 1],
      ['t-ws', 2],
    ] as const) {
      const replay = await runDelta(['replay', '-w', join(out, task, 'fake-model', '1')], { env });
      expect(replay.stderr).not.toContain('Error');
      expect(replay.stdout).toContain("start state: the same as the recorded run's");
      expect(replay.stdout).toContain('identical: 2 model calls');
      expect(replay.exitCode).toBe(0);
      const place = join(out, '.batch', 'replays', `R00${index}`);
      expect(replay.stdout).toContain(`in ${place} (COMPLETED)`);
      expect(readMetadata(runPaths(place, readLatestRunId(place)!).metadata).replay_of?.run_id).toBe('run-1');
    }
    expect(readFileSync(join(out, '.batch', 'replays', 'R002', 'data', 'input.txt'), 'utf8')).toBe('from the workspace directory\n');
    // Nothing of the batch's replays goes into the agent's directory.
    expect(readdirSync(agent).filter((name) => ['replays', 'forks', 'workspaces'].includes(name))).toEqual([]);
  });

  it('fork --at 1 goes on live from the rebuilt start state, in OUT/.batch/forks, and delta list -w lists what each holds', async () => {
    const { agent, out, env } = await batchWithStartStates();
    for (const [task, index, said] of [
      ['t-files', 1, 'from the files field'],
      ['t-ws', 2, 'from the workspace directory'],
    ] as const) {
      const fork = await runDelta(['fork', '-w', join(out, task, 'fake-model', '1'), '--at', '1', '-q'], { env });
      expect(fork.stderr).toContain(`in ${join(out, '.batch', 'forks', `F00${index}`)}`);
      expect(fork.exitCode).toBe(0);
      expect(fork.stdout.trim()).toBe(`It says: ${said}`);
    }
    const replay = await runDelta(['replay', '-w', join(out, 't-files', 'fake-model', '1'), '-q'], { env });
    expect(replay.exitCode).toBe(0);
    expect(readdirSync(join(out, '.batch'))).toEqual(expect.arrayContaining(['forks', 'replays']));
    expect(readdirSync(agent).filter((name) => ['replays', 'forks', 'workspaces'].includes(name))).toEqual([]);

    const ordinary = await runDelta(['list', '--agent', agent], { env });
    expect(ordinary.exitCode).toBe(0);
    expect(ordinary.stdout).not.toMatch(/COMPLETED|FAILED|INTERRUPTED/);

    const forked = await runDelta(['list', '-w', join(out, '.batch', 'forks', 'F001')], { env });
    expect(forked.exitCode).toBe(0);
    // The fork's workspace also holds the replay that rebuilt it (through iteration 1).
    expect(forked.stdout).toMatch(/fork of run-1 @1 +COMPLETED/);
    expect(forked.stdout).toMatch(/replay of run-1 +INTERRUPTED +1\/1 /);
  });

  it("fork goes on with the run's own model (--model of the batch), on the run's own endpoint", async () => {
    const agent = await createTempAgent({ agentYaml });
    const directory = await createTempDir();
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ id: 't', message: 'Read notes.txt', files: { 'notes.txt': 'hello\n' } })}\n`);
    const out = join(directory, 'out');
    const env = modelEnv(llm);
    const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--model', 'other-model'], { env });
    expect(batch.exitCode).toBe(0);
    const before = llm.requests.length;
    const source = join(out, 't', 'other-model', '1');
    const fork = await runDelta(['fork', '-w', source, '--at', '1', '-q'], { env });
    expect(fork.exitCode, fork.stderr).toBe(0);
    // The rebuild replays nothing live; the fork's own request is the live one, on the run's model, not agent.yaml's.
    const live = llm.requests.slice(before);
    expect(live.map((request) => (request.body as { model: string }).model)).toEqual(['other-model']);

    expect(readdirSync(join(out, '.batch', 'forks'))).toEqual(['F001']);
  });

  it('outside a batch, a run whose workspace held files: the fork is refused with a hint naming --into, and replay says it too', async () => {
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir(), 'ws');
    mkdirSync(work);
    writeFileSync(join(work, 'notes.txt'), 'prepared by hand\n');
    const env = modelEnv(llm);
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Read notes.txt', '-q'], { env });
    expect(run.exitCode).toBe(0);

    const fork = await runDelta(['fork', '-w', work, '--at', '1', '-q'], { env });
    expect(fork.exitCode).not.toBe(0);
    expect(fork.stderr).toContain(
      "did not start as the recorded run's (notes.txt): prepare a directory as the run found its own and pass it with --into DIR",
    );
    const replay = await runDelta(['replay', '-w', work, '-q'], { env });
    expect(replay.exitCode).toBe(1);
    expect(replay.stdout).toContain('1 missing (notes.txt)');
    expect(replay.stdout).toContain('pass it with --into DIR');

    const into = join(await createTempDir(), 'again');
    mkdirSync(into);
    writeFileSync(join(into, 'notes.txt'), 'prepared by hand\n');
    const forkInto = await runDelta(['fork', '-w', work, '--at', '1', '--into', into, '-q'], { env });
    expect(forkInto.exitCode).toBe(0);
    expect(forkInto.stdout.trim()).toBe('It says: prepared by hand');
  });
});
