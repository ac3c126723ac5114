import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal, readMetadata, type JournalEvent } from '@delta/journal';
import { runDelta } from './test-support.js';
import { latestRunDir, startDelta } from './test-processes.js';

// A signal that comes after the model has answered and before a tool call starts: while the
// post_llm_response hook runs (it waits for the test). The answer in hand is journaled first, whatever
// else holds; then the run stops (.changeset/loop-decisions-and-effects.md).

let server: FakeLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
});

const HOOKS = ['on_iteration_start', 'post_llm_response', 'pre_tool_execution', 'post_tool_execution', 'on_iteration_end'];

/** Logs each hook with its iteration; post_llm_response then says it is waiting and waits for `release` (60 s at most). */
const HOOK = `#!/bin/sh
echo "$DELTA_HOOK_NAME $ITERATION_COUNT" >> hooks.log
if [ "$DELTA_HOOK_NAME" = post_llm_response ]; then
  touch waiting
  i=0; until [ -e release ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done
fi
`;

async function setup(script: ScriptStep[]) {
  server = await startFakeLlm({ script });
  const agent = await createTempAgent({
    agentYaml: {
      name: 'signal-after-answer',
      llm: { model: 'm', max_retries: 0 },
      sandbox: { mode: 'off' },
      tools: [{ name: 'mark', description: 'Leave a mark', shell: 'echo ran >> marks' }],
    },
    hooksYaml: HOOKS.map((name) => `${name}:\n  command: ['sh', '\${AGENT_HOME}/hook.sh']\n`).join(''),
    files: { 'hook.sh': HOOK },
  });
  const work = join(await createTempDir('signal-after-answer-'), 'w');
  const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl };
  return { agent, work, env };
}

/** Starts `delta run`, and sends SIGINT once post_llm_response waits: the model has answered. */
async function interruptAfterAnswer(agent: string, work: string, env: Record<string, string>) {
  const running = startDelta(['run', '--agent', agent, '-m', 'go', '-w', work], env);
  await vi.waitFor(() => expect(existsSync(join(work, 'waiting'))).toBe(true), { timeout: 20_000, interval: 10 });
  running.child.kill('SIGINT');
  return running.done;
}

const journalOf = (work: string): JournalEvent[] => readJournal(join(latestRunDir(work)!, 'journal.jsonl'));
const hooksOf = (work: string) => readFileSync(join(work, 'hooks.log'), 'utf8').trim().split('\n');

describe('a signal between the model answer and what follows it', () => {
  it('after an answer with a tool call: the answer is journaled, the call left pending (exit 130); delta continue -m runs it once, then the model reads the message', async () => {
    const { agent, work, env } = await setup([{ tool_calls: [{ id: 'call_mark', name: 'mark', arguments: {} }] }, { content: 'done' }]);
    const stopped = await interruptAfterAnswer(agent, work, env);
    expect(stopped.exitCode).toBe(130);
    expect(readMetadata(join(latestRunDir(work)!, 'metadata.json'))).toMatchObject({ status: 'INTERRUPTED', exit_code: 130 });
    const first = journalOf(work);
    expect(
      first.filter((event) => event.type === 'THOUGHT').flatMap((event) => (event.type === 'THOUGHT' ? event.tool_calls : [])),
    ).toEqual([expect.objectContaining({ id: 'call_mark', name: 'mark' })]);
    // Not journaled as "not run": the call waits, unstarted, for the next engine.
    expect(first.filter((event) => event.type === 'ACTION_REQUEST' || event.type === 'ACTION_RESULT')).toEqual([]);
    expect(first.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'INTERRUPTED' });
    expect(existsSync(join(work, 'marks'))).toBe(false);
    // The iteration has not ended: no on_iteration_end yet.
    expect(hooksOf(work)).toEqual(['on_iteration_start 1', 'post_llm_response 1']);

    writeFileSync(join(work, 'release'), '');
    const resumed = await runDelta(['continue', '-w', work, '-m', 'never mind'], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe('done\n');
    expect(readFileSync(join(work, 'marks'), 'utf8')).toBe('ran\n');
    // The call is run, its iteration ends, and only then is the model asked again (two requests in all).
    expect(hooksOf(work)).toEqual([
      'on_iteration_start 1',
      'post_llm_response 1',
      'pre_tool_execution 1',
      'post_tool_execution 1',
      'on_iteration_end 1',
      'on_iteration_start 2',
      'post_llm_response 2',
      'on_iteration_end 2',
    ]);
    expect(server!.requests).toHaveLength(2);
    // The pending call was run before the model read the message: its result, then the message.
    const sent = (server!.requests[1]!.body as { messages: { role: string; content?: unknown }[] }).messages;
    expect(sent.slice(-3).map((message) => message.role)).toEqual(['assistant', 'tool', 'user']);
    expect(sent.at(-1)!.content).toBe('never mind');
    const results = journalOf(work).filter((event) => event.type === 'ACTION_RESULT');
    expect(results).toEqual([expect.objectContaining({ action_id: 'call_mark', status: 'SUCCESS' })]);
  });

  it('after a final answer: the run is COMPLETED with it (exit 0), the model is not asked again', async () => {
    const { agent, work, env } = await setup([{ content: 'the answer' }]);
    const stopped = await interruptAfterAnswer(agent, work, env);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stdout).toBe('the answer\n');
    expect(readMetadata(join(latestRunDir(work)!, 'metadata.json'))).toMatchObject({ status: 'COMPLETED', exit_code: 0 });
    expect(journalOf(work).at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
    // on_iteration_end is still run (the signal stops it at once: the run was interrupted).
    const audits = journalOf(work).flatMap((event) => (event.type === 'HOOK_EXECUTION_AUDIT' ? [event.hook_name] : []));
    expect(audits).toEqual(['on_iteration_start', 'post_llm_response', 'on_iteration_end']);
    expect(server!.requests).toHaveLength(1);
  });
});
