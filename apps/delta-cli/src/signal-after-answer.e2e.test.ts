import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readJournal, readMetadata, type JournalEvent } from '@delta/journal';
import { runDelta } from './test-support.js';
import { latestRunDir, startDelta } from './test-processes.test-support.js';

// A signal that comes after the model has answered and before a tool call starts: while the
// post_llm_response hook runs (it waits for the test). The answer in hand is journaled first, its calls
// are answered "not run", then the run stops (packages/engine-core/src/next-step.ts nextStep).

afterEach(cleanupTestResources);

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
  const server = await startFakeLlm({ script });
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
  const env = modelEnv(server);
  return { agent, work, env, server };
}

/** Starts `delta run`, and sends SIGINT once post_llm_response waits: the model has answered. */
async function interruptAfterAnswer(agent: string, work: string, env: Record<string, string>) {
  const running = startDelta(['run', '--agent', agent, '-m', 'go', '-w', work], env);
  await vi.waitFor(() => expect(existsSync(join(work, 'waiting'))).toBe(true), { timeout: 20_000, interval: 10 });
  running.child.kill('SIGINT');
  return running.done;
}

const journalOf = (work: string): JournalEvent[] => readJournal(join(latestRunDir(work)!, 'journal.jsonl'));

describe('a signal between the model answer and what follows it', () => {
  it('after an answer with a tool call: the answer is journaled, the call recorded as not run (exit 130); delta continue -m shows the model both, and never runs the call', async () => {
    const { agent, work, env, server } = await setup([
      { tool_calls: [{ id: 'call_mark', name: 'mark', arguments: {} }] },
      { content: 'done' },
    ]);
    const stopped = await interruptAfterAnswer(agent, work, env);
    expect(stopped.exitCode).toBe(130);
    expect(readMetadata(join(latestRunDir(work)!, 'metadata.json'))).toMatchObject({ status: 'INTERRUPTED', exit_code: 130 });
    const first = journalOf(work);
    expect(
      first.filter((event) => event.type === 'THOUGHT').flatMap((event) => (event.type === 'THOUGHT' ? event.tool_calls : [])),
    ).toEqual([expect.objectContaining({ id: 'call_mark', name: 'mark' })]);
    // A run stops between iterations: the call the user stopped is answered "not run", never left for the next engine.
    expect(first.filter((event) => event.type === 'ACTION_RESULT')).toEqual([
      expect.objectContaining({
        action_id: 'call_mark',
        observation_content: '[not run: the run was interrupted before this tool call started]',
      }),
    ]);
    expect(first.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'INTERRUPTED' });
    expect(existsSync(join(work, 'marks'))).toBe(false);
    // No gate for a call that does not run; the iteration ends.
    const audits = first.flatMap((event) => (event.type === 'HOOK_EXECUTION_AUDIT' ? [event.hook_name] : []));
    expect(audits).toEqual(['on_iteration_start', 'post_llm_response', 'on_iteration_end']);

    writeFileSync(join(work, 'release'), '');
    const resumed = await runDelta(['continue', '-w', work, '-m', 'never mind'], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe('done\n');
    expect(existsSync(join(work, 'marks'))).toBe(false);
    expect(server.requests).toHaveLength(2);
    // The model reads its call, that it was not run, and the message.
    const sent = (server.requests[1]!.body as { messages: { role: string; content?: unknown }[] }).messages;
    expect(sent.slice(-3).map((message) => message.role)).toEqual(['assistant', 'tool', 'user']);
    expect(sent.at(-2)!.content).toBe('[not run: the run was interrupted before this tool call started]');
    expect(sent.at(-1)!.content).toBe('never mind');
  });

  it('after a final answer: the run is COMPLETED with it (exit 0), the model is not asked again', async () => {
    const { agent, work, env, server } = await setup([{ content: 'the answer' }]);
    const stopped = await interruptAfterAnswer(agent, work, env);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stdout).toBe('the answer\n');
    expect(readMetadata(join(latestRunDir(work)!, 'metadata.json'))).toMatchObject({ status: 'COMPLETED', exit_code: 0 });
    expect(journalOf(work).at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
    // on_iteration_end is still run (the signal stops it at once: the run was interrupted).
    const audits = journalOf(work).flatMap((event) => (event.type === 'HOOK_EXECUTION_AUDIT' ? [event.hook_name] : []));
    expect(audits).toEqual(['on_iteration_start', 'post_llm_response', 'on_iteration_end']);
    expect(server.requests).toHaveLength(1);
  });
});
