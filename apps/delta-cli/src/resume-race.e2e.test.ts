import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readJournal, readMetadata } from '@delta/journal';
import { runDelta } from './test-support.js';
import { latestRunDir, startDelta, waitForJournal } from './test-processes.test-support.js';

// Two `delta continue` processes start at once on one interrupted run: exactly one may proceed.

const TRIALS = 20;

const agentYaml = {
  name: 'race-target',
  llm: { model: 'm', max_retries: 0 },
  tools: [{ name: 'pause', description: 'Wait a moment', shell: 'sleep -- ${seconds}; echo waited' }],
};

/** Two tool steps, then an answer; the first tool call is slow so that a run can be killed inside it. */
function script(request: { body: { messages?: Array<{ role: string; content?: unknown }> } }): ScriptStep {
  const messages = request.body.messages ?? [];
  const assistants = messages.filter((message) => message.role === 'assistant').length;
  const slow = messages.some((message) => message.role === 'user' && message.content === 'go slowly');
  if (assistants >= 3) return { content: 'finished', delay_ms: 150 };
  return {
    delay_ms: 150,
    tool_calls: [{ id: `call_${assistants + 1}`, name: 'pause', arguments: { seconds: slow && assistants === 0 ? '5' : '0.05' } }],
  };
}

let server: FakeLlm;
let agent: string;
beforeAll(async () => {
  server = await startFakeLlm({ script });
  agent = await createTempAgent({ agentYaml });
});
afterAll(async () => {
  await server.close();
  await cleanupTempDirs();
});

/** An interrupted run: alternately one stopped by its iteration budget (lock released) and one killed (a dead holder). */
async function interruptedRun(trial: number, env: Record<string, string>): Promise<string> {
  const work = join(await createTempDir('race-'), 'w');
  if (trial % 2 === 0) {
    const stopped = await runDelta(['run', '--agent', agent, '-m', 'go', '-w', work, '--max-iterations', '1'], { env });
    expect(stopped.exitCode).toBe(3);
  } else {
    const running = startDelta(['run', '--agent', agent, '-m', 'go slowly', '-w', work], env);
    // The bound only ends a hang: on a machine at load 50 an engine can take over 20 s to get there.
    await waitForJournal(work, (line) => line.includes('"ACTION_REQUEST"'), 120_000);
    running.child.kill('SIGKILL');
    await running.done;
  }
  return work;
}

describe('two resumers on one run', () => {
  // The timeout only bounds a hang: 20 trials of three engine processes each take minutes on a loaded machine.
  it(`lets exactly one proceed, ${TRIALS} times`, { timeout: 15 * 60_000 }, async () => {
    const env = modelEnv(server);
    let refusedByLock = 0;
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const work = await interruptedRun(trial, env);
      const [first, second] = await Promise.all([
        startDelta(['continue', '-w', work], env).done,
        startDelta(['continue', '-w', work], env).done,
      ]);
      const results = [first, second];
      const winners = results.filter((result) => result.exitCode === 0);
      const losers = results.filter((result) => result.exitCode !== 0);
      expect(winners, `trial ${trial}: ${results.map((result) => result.stderr).join('\n---\n')}`).toHaveLength(1);
      expect(winners[0]!.stdout).toBe('finished\n');
      expect(losers).toHaveLength(1);
      const loser = losers[0]!;
      expect(loser.exitCode).toBe(2);
      const lockedOut = /Run is currently executing[\s\S]*pid \d+/.test(loser.stderr);
      if (lockedOut) refusedByLock += 1;
      else expect(loser.stderr).toContain('Run is COMPLETED. To continue, provide a message using -m/--message');

      const runDir = latestRunDir(work)!;
      const events = readJournal(join(runDir, 'journal.jsonl'));
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(events.filter((event) => event.type === 'ENGINE_START' && event.resumed === true)).toHaveLength(1);
      const calls = events.flatMap((event) => (event.type === 'THOUGHT' ? event.tool_calls.map((call) => call.id) : []));
      const answered = events.flatMap((event) => (event.type === 'ACTION_RESULT' ? [event.action_id] : []));
      expect(answered).toEqual(calls);
      expect(readMetadata(join(runDir, 'metadata.json'))).toMatchObject({ status: 'COMPLETED' });
    }
    // Most of the time the two really overlap and the lock decides.
    process.stderr.write(
      `resume race: ${TRIALS} trials, the loser refused by the lock ${refusedByLock} times, found the run completed ${TRIALS - refusedByLock} times\n`,
    );
    expect(refusedByLock).toBeGreaterThanOrEqual(TRIALS / 2);
    expect(server.requests.filter((request) => request.status !== 200)).toEqual([]);
  });
});
