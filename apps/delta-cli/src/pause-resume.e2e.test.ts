import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal, readMetadata, type JournalEvent } from '@delta/journal';
import { runDelta } from './test-support.js';
import { latestRunDir, startDelta, waitForJournal } from './test-processes.js';

interface Message {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}
type Request = { body: { messages?: Message[] } };

let server: FakeLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
});

const agentYaml = {
  name: 'pause-resume',
  llm: { model: 'm', max_retries: 0 },
  // Unsandboxed: the tool reports its process group, which inside the sandbox's PID namespace reads 0.
  sandbox: { mode: 'off' },
  tools: [
    {
      name: 'slow',
      description: 'Say which process group it runs in, wait for the test to release it, then leave a marker',
      // Runs until the test writes `release` (30 s at most), so no test depends on how fast the machine is.
      shell:
        'cut -d " " -f 5 /proc/$$/stat > group.tmp && mv group.tmp group; ' +
        'i=0; until [ -e release ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i+1)); done; touch marker',
    },
  ],
};

async function setup(script: (request: Request, index: number) => ScriptStep) {
  server = await startFakeLlm({ script });
  const agent = await createTempAgent({ agentYaml });
  const work = join(await createTempDir('pause-'), 'w');
  const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl };
  return { agent, work, env };
}

/** Pids of the processes in a process group that are still running (a zombie nobody reaps does not count). */
function liveProcessesOfGroup(group: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      // pid (comm) state ppid pgrp ...; comm may hold spaces, so the fields are read after its ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(pgrp) === group && state !== 'Z' ? [Number(entry)] : [];
    } catch {
      return []; // gone while listed
    }
  });
}

const messagesOf = (request: Request) => request.body.messages ?? [];
const lastMessage = (request: Request) => messagesOf(request).at(-1)!;
const journalOf = (work: string): JournalEvent[] => readJournal(join(latestRunDir(work)!, 'journal.jsonl'));
const metadataOf = (work: string) => readMetadata(join(latestRunDir(work)!, 'metadata.json'));

function expectConsistentJournal(events: readonly JournalEvent[]) {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const calls = events.flatMap((event) => (event.type === 'THOUGHT' ? event.tool_calls.map((call) => call.id) : []));
  expect(events.flatMap((event) => (event.type === 'ACTION_RESULT' ? [event.action_id] : []))).toEqual(calls);
  expect(server!.requests.filter((request) => request.status !== 200)).toEqual([]);
}

/** Asks once (ask_human), then answers with what the human said. */
function askingScript(args: Record<string, unknown>) {
  return (request: Request): ScriptStep => {
    const last = lastMessage(request);
    if (last.role === 'user' && messagesOf(request).filter((message) => message.role === 'assistant').length === 0) {
      return { tool_calls: [{ id: 'call_ask', name: 'ask_human', arguments: args }] };
    }
    return { content: `got: ${String(last.content)}` };
  };
}

describe('ask_human', () => {
  it('pauses with exit 101 and resumes from response.txt with delta run -w', async () => {
    const { agent, work, env } = await setup(askingScript({ prompt: 'Which colour?' }));
    const paused = await runDelta(['run', '--agent', agent, '-m', 'Pick a colour', '-w', work], { env });
    expect(paused.exitCode).toBe(101);
    const runDir = latestRunDir(work)!;
    expect(paused.stderr).toContain(`Agent paused. Provide response in `);
    expect(paused.stderr).toContain(`interaction/response.txt`);
    expect(paused.stderr).toContain(`Or use: delta continue -w ${work} -m <response>`);
    // The progress lines come first, the instructions last (progress held back was once written after them).
    const lines = paused.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`Or use: delta continue -w ${work} -m <response>`);
    expect(lines.findIndex((line) => line.includes('? ask_human: Which colour?'))).toBeGreaterThan(-1);
    expect(lines.findIndex((line) => / ended: WAITING_FOR_INPUT/.test(line))).toBeLessThan(
      lines.findIndex((line) => line.startsWith('Agent paused.')),
    );
    expect(metadataOf(work)).toMatchObject({ status: 'WAITING_FOR_INPUT', exit_code: 101 });
    const request = JSON.parse(readFileSync(join(runDir, 'interaction', 'request.json'), 'utf8'));
    expect(request).toMatchObject({ prompt: 'Which colour?', input_type: 'text', sensitive: false });
    expect(request.request_id).toMatch(/^[0-9a-f-]{36}$/);

    writeFileSync(join(runDir, 'interaction', 'response.txt'), 'blue\n');
    const resumed = await runDelta(['run', '--agent', agent, '-m', 'And now say thanks', '-w', work], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toContain('its answer is taken from interaction/response.txt; your -m message is not used');
    expect(resumed.stdout).toBe('got: blue\n');
    expect(existsSync(join(runDir, 'interaction', 'request.json'))).toBe(false);
    expect(existsSync(join(runDir, 'interaction', 'response.txt'))).toBe(false);

    // The answer is the ask_human tool result, right after the call, never a user message.
    const afterAnswer = server!.requests[1]!.body.messages as Message[];
    expect(afterAnswer.slice(-2).map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(afterAnswer.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_ask', content: 'blue' });
    const events = journalOf(work);
    expectConsistentJournal(events);
    expect(events.find((event) => event.type === 'HUMAN_INPUT_REQUEST')).toMatchObject({ action_id: 'call_ask', prompt: 'Which colour?' });
    expect(events.find((event) => event.type === 'HUMAN_INPUT_RECEIVED')).toMatchObject({ action_id: 'call_ask', response: 'blue' });
    expect(events.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({
      tool_name: 'ask_human',
      observation_content: 'blue',
      exit_code: 0,
    });
    expect(metadataOf(work)).toMatchObject({ status: 'COMPLETED' });
  });

  it('resumes a paused run with delta continue -w DIR -m ANSWER', async () => {
    const { agent, work, env } = await setup(askingScript({ prompt: 'Proceed?', input_type: 'confirmation' }));
    expect((await runDelta(['run', '--agent', agent, '-m', 'Deploy', '-w', work], { env })).exitCode).toBe(101);
    const missing = await runDelta(['continue', '-w', work], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('Run is WAITING_FOR_INPUT. To continue, provide the answer using -m/--message');
    const resumed = await runDelta(['continue', '-w', work, '-m', 'yes, proceed'], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe('got: yes, proceed\n');
    const runDir = latestRunDir(work)!;
    expect(existsSync(join(runDir, 'interaction', 'response.txt'))).toBe(false);
    const events = journalOf(work);
    expectConsistentJournal(events);
    expect(events.filter((event) => event.type === 'USER_MESSAGE')).toHaveLength(1);
    expect(events.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({
      tool_name: 'ask_human',
      observation_content: 'yes, proceed',
    });
  });

  it('asks at the terminal with -i (answers piped on stdin), also for a sensitive question, and stays RUNNING', async () => {
    const { agent, work, env } = await setup((request) => {
      const assistants = messagesOf(request).filter((message) => message.role === 'assistant').length;
      if (assistants === 0) return { tool_calls: [{ id: 'call_name', name: 'ask_human', arguments: { prompt: 'Your name?' } }] };
      if (assistants === 1) {
        return {
          tool_calls: [{ id: 'call_key', name: 'ask_human', arguments: { prompt: 'API key?', input_type: 'password', sensitive: true } }],
        };
      }
      const tools = messagesOf(request).filter((message) => message.role === 'tool');
      return { content: tools.map((message) => String(message.content)).join(' + ') };
    });
    const result = await runDelta(['run', '-i', '--agent', agent, '-m', 'Sign me up', '-w', work], { env, input: 'Ada\nsk-secret\n' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('Ada + sk-secret\n');
    expect(result.stderr).toContain('? Your name?');
    expect(result.stderr).toContain('? API key? (input hidden)');
    const runDir = latestRunDir(work)!;
    expect(existsSync(join(runDir, 'interaction', 'request.json'))).toBe(false);
    const events = journalOf(work);
    expectConsistentJournal(events);
    expect(events.filter((event) => event.type === 'ENGINE_END')).toHaveLength(1);
    expect(events.find((event) => event.type === 'HUMAN_INPUT_REQUEST' && event.action_id === 'call_key')).toMatchObject({
      sensitive: true,
      input_type: 'password',
    });
    expect(
      events
        .filter((event) => event.type === 'HUMAN_INPUT_RECEIVED')
        .map((event) => event.type === 'HUMAN_INPUT_RECEIVED' && event.response),
    ).toEqual(['Ada', 'sk-secret']);
    expect(metadataOf(work)).toMatchObject({ status: 'COMPLETED' });

    // The journal keeps the password; delta log and delta view hide it wherever it appears.
    const log = await runDelta(['log', '-w', work], { env });
    expect(log.exitCode).toBe(0);
    expect(log.stdout).toContain('Ada');
    expect(log.stdout).toContain('API key? (password)');
    expect(log.stdout).toContain('•••••• (hidden: an answer to a password or sensitive question; the journal keeps it)');
    expect(log.stdout).not.toContain('sk-secret');
    const page = await runDelta(['view', '-w', work, '--stdout'], { env });
    expect(page.exitCode).toBe(0);
    expect(page.stdout).toContain('Ada + ••••••');
    expect(page.stdout).not.toContain('sk-secret');
  });
});

describe('signals', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} during a tool stops its process group, records INTERRUPTED and exits 130; delta continue resumes`, async () => {
      const { agent, work, env } = await setup((request) =>
        messagesOf(request).some((message) => message.role === 'tool')
          ? { content: 'resumed and done' }
          : { tool_calls: [{ id: 'call_slow', name: 'slow', arguments: {} }] },
      );
      const running = startDelta(['run', '--agent', agent, '-m', 'Be slow', '-w', work], env);
      // The signal comes once the tool runs: it has written its process group.
      const groupFile = join(work, 'group');
      await vi.waitFor(() => expect(existsSync(groupFile)).toBe(true), { timeout: 20_000, interval: 5 });
      const group = Number(readFileSync(groupFile, 'utf8'));
      running.child.kill(signal);
      const stopped = await running.done;
      expect(stopped.exitCode).toBe(130);
      expect(stopped.stderr).toContain(`Resume it with: delta continue -w ${work}`);
      // The marker could only come from a process of the tool's group: once none is left, it never will.
      await vi.waitFor(() => expect(liveProcessesOfGroup(group)).toEqual([]), { timeout: 10_000, interval: 20 });
      expect(existsSync(join(work, 'marker'))).toBe(false);
      expect(metadataOf(work)).toMatchObject({ status: 'INTERRUPTED', exit_code: 130 });
      const result = journalOf(work).find((event) => event.type === 'ACTION_RESULT');
      expect(result).toMatchObject({ action_id: 'call_slow' });
      expect(result?.type === 'ACTION_RESULT' && result.observation_content).toContain('the tool was interrupted');

      const resumed = await runDelta(['continue', '-w', work], { env });
      expect(resumed.exitCode).toBe(0);
      expect(resumed.stdout).toBe('resumed and done\n');
      expectConsistentJournal(journalOf(work));
    });
  }
});

describe('delta continue, row by row (spec 2.6.2)', () => {
  /** A tool step, then an answer that echoes the last user message. */
  const echoScript = (request: Request): ScriptStep => {
    const messages = messagesOf(request);
    const last = messages.at(-1)!;
    if (last.role === 'user' && messages.filter((message) => message.role === 'assistant').length === 0) {
      return { tool_calls: [{ id: 'call_1', name: 'ask_human', arguments: { prompt: 'unused' } }] };
    }
    const users = messages.filter((message) => message.role === 'user');
    return { content: `answer to: ${String(users.at(-1)!.content)}` };
  };

  it('INTERRUPTED without and with -m', async () => {
    const { agent, work, env } = await setup((request) => {
      const assistants = messagesOf(request).filter((message) => message.role === 'assistant').length;
      if (assistants < 2) return { tool_calls: [{ id: `call_${assistants}`, name: 'ask_human', arguments: { prompt: 'x' } }] };
      const users = messagesOf(request).filter((message) => message.role === 'user');
      return { content: `last user message: ${String(users.at(-1)!.content)}` };
    });
    // -i answers from stdin; --max-iterations 1 stops it INTERRUPTED (exit 3) after the first step.
    const budget = await runDelta(['run', '-i', '--agent', agent, '-m', 'first', '-w', work, '--max-iterations', '1'], {
      env,
      input: 'a\n',
    });
    expect(budget.exitCode).toBe(3);
    expect(metadataOf(work)).toMatchObject({ status: 'INTERRUPTED' });
    const plain = await runDelta(['continue', '-i', '-w', work, '--max-iterations', '1'], { env, input: 'b\n' });
    expect(plain.exitCode).toBe(3);
    const withMessage = await runDelta(['continue', '-w', work, '-m', 'skip validation'], { env });
    expect(withMessage.exitCode).toBe(0);
    expect(withMessage.stdout).toBe('last user message: skip validation\n');
    const events = journalOf(work);
    expectConsistentJournal(events);
    expect(events.filter((event) => event.type === 'USER_MESSAGE').map((event) => event.type === 'USER_MESSAGE' && event.content)).toEqual([
      'first',
      'skip validation',
    ]);
  });

  it('delta run -w on an INTERRUPTED run resumes it, and with --new starts a new run beside it', async () => {
    const { agent, work, env } = await setup((request) => {
      const users = messagesOf(request).filter((message) => message.role === 'user');
      if (messagesOf(request).some((message) => message.role === 'tool')) return { content: `done: ${String(users[0]!.content)}` };
      return { tool_calls: [{ id: 'call_a', name: 'ask_human', arguments: { prompt: 'x' } }] };
    });
    const budget = await runDelta(['run', '-i', '--agent', agent, '-m', 'first', '-w', work, '--max-iterations', '1'], {
      env,
      input: 'a\n',
    });
    expect(budget.exitCode).toBe(3);
    const interrupted = latestRunDir(work)!;
    const fresh = await runDelta(['run', '--agent', agent, '-m', 'another task', '-w', work, '--new', '--max-iterations', '1'], { env });
    expect(fresh.stderr).not.toContain('Resuming run');
    expect(latestRunDir(work)).not.toBe(interrupted);
    expect(readJournal(join(latestRunDir(work)!, 'journal.jsonl')).find((event) => event.type === 'USER_MESSAGE')).toMatchObject({
      content: 'another task',
    });
    // The interrupted run is untouched, and still the one a plain delta continue --run-id resumes.
    expect(readMetadata(join(interrupted, 'metadata.json'))).toMatchObject({ status: 'INTERRUPTED' });
    const help = await runDelta(['run', '--help']);
    expect(help.stdout).toMatch(/--new\s+Start a new run even when/);
    expect(help.stdout).toMatch(/--max-iterations <n>\s+Model calls in this invocation/);
  });

  it('COMPLETED needs -m (the exact error), then extends the conversation', async () => {
    const { agent, work, env } = await setup(echoScript);
    expect((await runDelta(['run', '-i', '--agent', agent, '-m', 'one', '-w', work], { env, input: 'x\n' })).exitCode).toBe(0);
    const refused = await runDelta(['continue', '-w', work], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('Error: Run is COMPLETED. To continue, provide a message using -m/--message\n');
    expect(refused.stderr).toContain(`Example: delta continue -w ${work} -m "Now do something else"`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const extended = await runDelta(['continue', '-w', work, '-m', 'two'], { env });
    expect(extended.exitCode).toBe(0);
    expect(extended.stdout).toBe('answer to: two\n');
    expectConsistentJournal(journalOf(work));
  });

  // A 400 is not transient (a 503 is: see continue-after-transient tests), so continuing needs a message.
  it('FAILED by a non-transient error needs -m (the exact error), then retries', async () => {
    let failing = true;
    const { agent, work, env } = await setup((request) =>
      failing ? { error: { status: 400, message: 'bad request', should_retry: false } } : echoScript(request),
    );
    const failed = await runDelta(['run', '--agent', agent, '-m', 'one', '-w', work], { env });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain('HTTP 400');
    expect(failed.stderr).toContain(`Retry it with: delta continue -w ${work} -m`);
    expect(metadataOf(work)).toMatchObject({ status: 'FAILED' });
    const refused = await runDelta(['continue', '-w', work], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('Error: Run is FAILED. To continue, provide a message using -m/--message\n');
    failing = false;
    const retried = await runDelta(['continue', '-i', '-w', work, '-m', 'try again'], { env, input: 'x\n' });
    expect(retried.exitCode).toBe(0);
    expect(retried.stdout).toBe('answer to: try again\n');
    expect(metadataOf(work)).toMatchObject({ status: 'COMPLETED', error: null });
    const events = journalOf(work);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === 'ERROR')).toHaveLength(1);
  });

  it('RUNNING under a live engine is refused with its pid; no run says so', async () => {
    const { agent, work, env } = await setup((request) =>
      messagesOf(request).some((message) => message.role === 'tool')
        ? { content: 'done' }
        : { tool_calls: [{ id: 'call_slow', name: 'slow', arguments: {} }] },
    );
    const running = startDelta(['run', '--agent', agent, '-m', 'Be slow', '-w', work], env);
    await waitForJournal(work, (line) => line.includes('"ACTION_REQUEST"'));
    const refused = await runDelta(['continue', '-w', work, '-m', 'hurry'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('Error: Run is currently executing. Wait for completion or interrupt first.');
    expect(refused.stderr).toContain(`(pid ${running.child.pid}`);
    // delta run -w on the same workspace is refused the same way (it would auto-resume the RUNNING run).
    const again = await runDelta(['run', '--agent', agent, '-m', 'hurry', '-w', work], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain(`(pid ${running.child.pid}`);
    writeFileSync(join(work, 'release'), '');
    expect((await running.done).exitCode).toBe(0);
    expect(existsSync(join(work, 'marker'))).toBe(true);
    expectConsistentJournal(journalOf(work));

    const empty = await createTempDir('empty-');
    const none = await runDelta(['continue', '-w', empty], { env });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('Error: No existing run found in the work directory');
    expect(none.stderr).toContain('Hint: Use `delta run` to start a new run.');
  });
});
