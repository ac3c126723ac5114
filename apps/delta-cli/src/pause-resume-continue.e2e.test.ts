import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTempDir, type ScriptStep } from '@delta/testkit';
import { readJournal, readMetadata } from '@delta/journal';
import { runDelta } from './test-support.js';
import { latestRunDir, startDelta, waitForJournal } from './test-processes.test-support.js';
import {
  closeServer,
  expectConsistentJournal,
  journalOf,
  messagesOf,
  metadataOf,
  type Request,
  setup,
} from './pause-resume.test-support.js';

afterEach(closeServer);

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
