import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { readJournal, readLatestRunId, readMetadata, runPaths, type EngineStartEvent, type JournalEvent } from '@delta/journal';
import { runDelta } from './test-support.js';

let servers: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  await cleanupTempDirs();
});

/** Each step writes stepN.txt and says so; the script is in the agent, so a test can change it. */
const STEP_SCRIPT = '#!/bin/sh\necho "step $1" > "step$1.txt"\necho "did step $1"\n';
const agentYaml = {
  name: 'stepper',
  llm: { model: 'test-model' },
  tools: [
    {
      name: 'step',
      description: 'Do step n',
      exec: 'sh ${AGENT_HOME}/step.sh ${n}',
      parameters: [{ name: 'n', type: 'integer' }],
    },
  ],
};

/** Five iterations: steps 1 to 4, then the answer. */
const fiveSteps = [
  ...[1, 2, 3, 4].map((n) => ({ content: `Doing step ${n}.`, tool_calls: [{ name: 'step', arguments: { n } }] })),
  { content: 'All four steps are done.' },
];

async function server(script: Parameters<typeof startFakeLlm>[0]['script']): Promise<FakeLlm> {
  const started = await startFakeLlm({ script });
  servers.push(started);
  return started;
}

async function recordedRun(script = fiveSteps): Promise<{ agent: string; work: string; runId: string }> {
  const llm = await server(script);
  const agent = await createTempAgent({ agentYaml, files: { 'step.sh': { content: STEP_SCRIPT, mode: 0o755 } } });
  const work = join(await createTempDir('work-'), 'ws');
  const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Do the four steps', '-q'], {
    env: { DELTA_BASE_URL: llm.baseUrl },
  });
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  return { agent, work, runId: readLatestRunId(work)! };
}

/** What diff and fork compare of an event: content, tool calls and observations, not seq, time or ids of io records. */
function essence(events: readonly JournalEvent[]): unknown[] {
  return events.flatMap((event): unknown[] => {
    if (event.type === 'USER_MESSAGE') return [{ type: event.type, content: event.content }];
    if (event.type === 'THOUGHT')
      return [{ type: event.type, iteration: event.iteration, content: event.content, tool_calls: event.tool_calls }];
    if (event.type === 'ACTION_REQUEST')
      return [{ type: event.type, iteration: event.iteration, action: event.action_id, args: event.tool_args }];
    if (event.type === 'ACTION_RESULT')
      return [
        {
          type: event.type,
          iteration: event.iteration,
          action: event.action_id,
          observation: event.observation_content,
          status: event.status,
        },
      ];
    return [];
  });
}

const noServer = { DELTA_BASE_URL: 'http://127.0.0.1:9/v1' };

describe('delta replay', () => {
  it('says identical for a deterministic 5-step run, and names the first divergent iteration and action after a tool script changes', async () => {
    const { agent, work } = await recordedRun();
    const into = join(await createTempDir('replay-'), 'ws');
    const same = await runDelta(['replay', '-w', work, '--into', into, '-q'], { env: noServer });
    expect(same.stderr).toBe('');
    expect(same.stdout).toContain("start state: the same as the recorded run's");
    expect(same.stdout).toContain('identical: 5 model calls, every request and tool result as recorded');
    expect(same.exitCode).toBe(0);
    expect(readFileSync(join(into, 'step4.txt'), 'utf8')).toBe('step 4\n');
    // The replay is a run of its own, marked with its source.
    const replayId = readLatestRunId(into)!;
    const start = readJournal(runPaths(into, replayId).journal)[0]!;
    expect(start).toMatchObject({ type: 'ENGINE_START', replay_of: { run_id: readLatestRunId(work), work_dir: work, tools: 'live' } });
    expect(readMetadata(runPaths(into, replayId).metadata)).toMatchObject({ status: 'COMPLETED', replay_of: { tools: 'live' } });

    // Step 3 now says something else: the replay stops there.
    writeFileSync(join(agent, 'step.sh'), `${STEP_SCRIPT}[ "$1" -ge 3 ] && echo "and more"\ntrue\n`);
    const changed = await runDelta(['replay', '-w', work, '--json', '--into', join(await createTempDir('replay-'), 'ws')], {
      env: noServer,
    });
    expect(changed.exitCode).toBe(1);
    const result = JSON.parse(changed.stdout);
    expect(result.identical).toBe(false);
    expect(result.divergence).toMatchObject({ iteration: 3, what: 'observation', action: { name: 'step' } });
    expect(result.divergence.diff).toContain('and more');
    const actionId = readJournal(runPaths(work, readLatestRunId(work)!).journal).find(
      (event) => event.type === 'ACTION_RESULT' && event.iteration === 3,
    ) as { action_id: string };
    expect(result.divergence.action.id).toBe(actionId.action_id);

    const text = await runDelta(['replay', '-w', work, '-q'], { env: noServer });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain(`diverged at iteration 3, action ${actionId.action_id} (step): the tool's observation differs`);
  });

  it('with --tools recorded runs no tool, and after an edit to context.yaml names the first request that differs', async () => {
    const { agent, work } = await recordedRun();
    const into = join(await createTempDir('replay-'), 'ws');
    const same = await runDelta(['replay', '-w', work, '--tools', 'recorded', '--into', into, '--json'], { env: noServer });
    expect(same.exitCode).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ identical: true, iterations: 5, tools: 'recorded' });
    expect(existsSync(join(into, 'step1.txt'))).toBe(false);

    // A workspace that does not start as the recorded run's did is said up front (the run started empty).
    const prepared = join(await createTempDir('replay-'), 'ws');
    mkdirSync(prepared);
    writeFileSync(join(prepared, 'left-over.txt'), 'x');
    const other = await runDelta(['replay', '-w', work, '--tools', 'recorded', '--into', prepared, '-q'], { env: noServer });
    expect(other.exitCode).toBe(0);
    expect(other.stdout).toContain("start state: different from the recorded run's: 1 extra (left-over.txt)");

    // Keep only the last 2 iterations of the conversation: the request of iteration 4 is the first to change.
    const context = readFileSync(join(agent, 'context.yaml'), 'utf8');
    expect(context).toMatch(/- type: journal\n/);
    writeFileSync(join(agent, 'context.yaml'), context.replace(/- type: journal\n/, '- type: journal\n    max_iterations: 2\n'));
    const edited = await runDelta(
      ['replay', '-w', work, '--tools', 'recorded', '--into', join(await createTempDir('replay-'), 'ws'), '--json'],
      {
        env: noServer,
      },
    );
    expect(edited.exitCode).toBe(1);
    const result = JSON.parse(edited.stdout);
    expect(result.divergence).toMatchObject({ iteration: 4, what: 'request' });
    expect(result.divergence.summary).toMatch(/^iteration 4: /);
  });
});

describe('delta replay of a run started with overrides', () => {
  it('builds the requests with the --model and --set the run was started with, and says identical', async () => {
    const llm = await server([{ content: 'Hello.' }]);
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir('work-'), 'ws');
    const run = await runDelta(
      ['run', '--agent', agent, '-w', work, '-m', 'Hi', '--model', 'other-model', '--set', 'llm.temperature=0', '-q'],
      { env: { DELTA_BASE_URL: llm.baseUrl } },
    );
    expect(run.exitCode).toBe(0);
    expect(llm.requests[0]!.body).toMatchObject({ model: 'other-model', temperature: 0 });
    const replay = await runDelta(
      ['replay', '-w', work, '--tools', 'recorded', '--into', join(await createTempDir('replay-'), 'ws'), '--json'],
      {
        env: noServer,
      },
    );
    expect(JSON.parse(replay.stdout)).toMatchObject({ identical: true, iterations: 1 });
    expect(replay.exitCode).toBe(0);
  });
});

describe('delta fork', () => {
  it("at 2 of a 5-step run: the events through iteration 2 and the workspace are the source's, then it completes live against a new script", async () => {
    const { work, runId } = await recordedRun();
    const live = await server([
      { content: 'Forked: step 9 instead.', tool_calls: [{ name: 'step', arguments: { n: 9 } }] },
      { content: 'Done differently.' },
    ]);
    const into = join(await createTempDir('fork-'), 'ws');
    const fork = await runDelta(
      [
        'fork',
        '-w',
        work,
        '--at',
        '2',
        '--into',
        into,
        '-m',
        'Now do step 9 instead',
        '--model',
        'other-model',
        '--set',
        'llm.temperature=0',
        '-q',
      ],
      {
        env: { DELTA_BASE_URL: live.baseUrl },
      },
    );
    expect(fork.stderr).toContain(`Forked run ${runId} after iteration 2`);
    expect(fork.exitCode).toBe(0);
    expect(fork.stdout).toBe('Done differently.\n');

    const source = readJournal(runPaths(work, runId).journal);
    const forkId = readLatestRunId(into)!;
    const events = readJournal(runPaths(into, forkId).journal);
    // Everything up to the last event of iteration 2: the task, two THOUGHTs, their calls and results.
    const through2 = (list: JournalEvent[]) => {
      const all = essence(list);
      return all.slice(0, all.findLastIndex((event) => (event as { iteration?: number }).iteration === 2) + 1);
    };
    expect(through2(source)).toHaveLength(7);
    expect(through2(events)).toEqual(through2(source));
    expect(essence(events).length).toBeGreaterThan(through2(events).length);
    expect(events[0]).toMatchObject({ type: 'ENGINE_START', forked_from: { run_id: runId, work_dir: work, iteration: 2 } });
    expect(readMetadata(runPaths(into, forkId).metadata)).toMatchObject({
      status: 'COMPLETED',
      forked_from: { run_id: runId, iteration: 2 },
    });
    // The live part: the new message, then the new script's answers.
    expect(live.requests).toHaveLength(2);
    expect(JSON.stringify(live.requests[0]!.body.messages.at(-1))).toContain('Now do step 9 instead');
    // ...with the overrides, which the live part's ENGINE_START records.
    expect(live.requests[0]!.body).toMatchObject({ model: 'other-model', temperature: 0 });
    const liveStart = events.filter((event): event is EngineStartEvent => event.type === 'ENGINE_START').at(-1)!;
    expect(liveStart.config).toMatchObject({ llm: { model: 'other-model', temperature: 0 } });

    // The workspace as the fork's run found it, once rebuilt (its ENGINE_START's manifest): exactly the
    // source's state after iteration 2, steps 1 and 2 with the same bytes, and no step 3 or 4.
    const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    expect((events[0] as EngineStartEvent).workspace?.entries).toEqual(
      ['step1.txt', 'step2.txt'].map((name) => ({
        path: name,
        type: 'file',
        size: readFileSync(join(work, name)).length,
        sha256: sha256(join(work, name)),
      })),
    );
    // Then what the live part did (step 9).
    const files = readdirSync(into)
      .filter((name) => name !== '.delta')
      .sort();
    expect(files).toEqual(['step1.txt', 'step2.txt', 'step9.txt']);
    expect(readFileSync(join(into, 'step2.txt'), 'utf8')).toBe(readFileSync(join(work, 'step2.txt'), 'utf8'));

    const outOfRange = await runDelta(['fork', '-w', work, '--at', '9'], { env: noServer });
    expect(outOfRange.exitCode).toBe(2);
    expect(outOfRange.stderr).toContain('has 5 iterations; it cannot be forked at 9');
  });

  it('at 0: only the task is kept, the workspace starts empty, and the run goes on live from the first model call', async () => {
    const { work, runId } = await recordedRun();
    const live = await server([{ content: 'Fresh start.' }]);
    const into = join(await createTempDir('fork-'), 'ws');
    const fork = await runDelta(['fork', '-w', work, '--at', '0', '--into', into, '-q'], { env: { DELTA_BASE_URL: live.baseUrl } });
    expect(fork.stderr).toContain(`Forked run ${runId} after iteration 0`);
    expect(fork.exitCode).toBe(0);
    expect(fork.stdout).toBe('Fresh start.\n');
    // Nothing of the recorded run's work: no step file, no copied call.
    expect(readdirSync(into).filter((name) => name !== '.delta')).toEqual([]);
    const events = readJournal(runPaths(into, readLatestRunId(into)!).journal);
    expect(essence(events)).toEqual([
      { type: 'USER_MESSAGE', content: 'Do the four steps' },
      { type: 'THOUGHT', iteration: 1, content: 'Fresh start.', tool_calls: [] },
    ]);
    expect(events[0]).toMatchObject({ type: 'ENGINE_START', forked_from: { run_id: runId, iteration: 0 } });
    // The first request the live model got is the recorded run's first: the system prompt and the task.
    expect(live.requests).toHaveLength(1);
    expect(live.requests[0]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Do the four steps' });
  });
});

describe('delta diff', () => {
  it('names the first divergent iteration of two runs of one task with different scripts', async () => {
    const a = await recordedRun();
    const other = [
      ...fiveSteps.slice(0, 2),
      { content: 'Doing step 3 differently.', tool_calls: [{ name: 'step', arguments: { n: 30 } }] },
      ...fiveSteps.slice(3),
    ];
    const b = await recordedRun(other);
    const text = await runDelta(['diff', a.work, join(b.work, '.delta', b.runId)]);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain("first divergence: iteration 3: the model's text differs");
    expect(text.stdout).toContain('iterations: 5 (A), 5 (B); 4 the same');

    const json = await runDelta(['diff', a.work, b.work, '--json']);
    expect(json.exitCode).toBe(1);
    const diff = JSON.parse(json.stdout);
    expect(diff.first).toMatchObject({ iteration: 3, what: 'content' });
    const besidesTokens = diff.differences.filter((difference: { what: string }) => difference.what !== 'tokens');
    expect(besidesTokens.map((difference: { iteration: number; what: string }) => `${difference.iteration} ${difference.what}`)).toEqual([
      '3 content',
      '3 tool_calls',
    ]);

    const same = await runDelta(['diff', a.work, a.work]);
    expect(same.exitCode).toBe(0);
    expect(same.stdout).toContain('the same: every iteration has the same text, tool calls and observations');
  });
});
