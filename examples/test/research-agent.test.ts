import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { copyExample, latestRun, observation, runScripted, runWithRecordedModel } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/3-advanced/research-agent', () => {
  it('asks the user and pauses (101), continues with the answer, and keeps findings in notes while the conversation window moves on', async () => {
    const agent = await copyExample('3-advanced/research-agent');
    const workspace = join(agent, 'workspaces', 'W001');

    const asked = await runScripted(join(agent, 'fake-llm.yaml'), [
      'run',
      '--agent',
      agent,
      '-m',
      'Which battery chemistry should I choose for home storage?',
      '-y',
    ]);
    expect(asked.exitCode).toBe(101);
    expect(asked.stderr).toContain('ended: WAITING_FOR_INPUT');
    const paused = latestRun(workspace);
    expect(paused.metadata).toMatchObject({ status: 'WAITING_FOR_INPUT' });
    expect(paused.journal.at(-2)).toMatchObject({
      type: 'HUMAN_INPUT_REQUEST',
      prompt: expect.stringContaining('What matters most to you'),
    });

    const answered = await runWithRecordedModel(join(agent, 'fake-llm-answer.yaml'), [
      'continue',
      '-w',
      workspace,
      '-m',
      'Lifetime and safety matter most',
    ]);
    expect(answered.stderr).toContain('ended: COMPLETED');
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toMatch(/^Choose LFP - it lasts 2 to 3 times as many cycles as NMC/);

    // The same run went on: one journal from the question to the report.
    const { runId, metadata, journal } = latestRun(workspace);
    expect(runId).toBe(paused.runId);
    expect(metadata).toMatchObject({ status: 'COMPLETED' });
    expect(journal.find((event) => event.type === 'HUMAN_INPUT_RECEIVED')).toBeDefined();
    expect(observation(journal, 'call_1_1')).toContain('Lifetime and safety matter most');

    expect(readFileSync(join(workspace, 'notes.md'), 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    const report = readFileSync(join(workspace, 'report.md'), 'utf8');
    expect(report).toContain('**Choose LFP (lithium iron phosphate)**');
    expect(report).toContain('(nmc.md)');

    // The last request: the notes are in view, the sources read four iterations earlier are not.
    const last = JSON.stringify(answered.requests.at(-1)!.messages);
    expect(last).toContain('## Your research notes (notes.md)');
    expect(last).toContain('LFP lasts 4000 to 6000 cycles');
    expect(last).not.toContain('Typical use: home storage, buses');
    expect(JSON.stringify(answered.requests[0]!.messages)).toContain('(none yet)');
    expect(answered.requests.at(-1)!.messages.filter((message) => message.role === 'assistant')).toHaveLength(3);
  });
});
