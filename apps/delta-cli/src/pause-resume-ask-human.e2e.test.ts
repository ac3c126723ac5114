import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptStep } from '@delta/testkit';
import { runDelta } from './test-support.js';
import { latestRunDir } from './test-processes.test-support.js';
import {
  closeServer,
  expectConsistentJournal,
  journalOf,
  lastMessage,
  type Message,
  messagesOf,
  metadataOf,
  type Request,
  server,
  setup,
} from './pause-resume.test-support.js';

afterEach(closeServer);

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
