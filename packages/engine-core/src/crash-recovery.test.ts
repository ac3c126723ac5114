import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal, readMetadata, updateMetadata, type JournalEvent } from '@delta/journal';
import { continueRun, loadAgent, startRun } from './index.js';

// A crash is simulated by cutting a finished run's journal back to the instant of the crash and setting
// metadata.json back to RUNNING, as a kill -9 at that instant would have left them.

afterEach(cleanupTestResources);

async function finishedRun(script: ScriptStep[]) {
  const server = await startFakeLlm({ script });
  const agent = loadAgent(await createTempAgent({ agentYaml: { name: 'recover', llm: { model: 'm', max_retries: 0 } } }));
  const workDir = join(await createTempDir('recover-'), 'w');
  const result = await startRun({
    agent,
    workDir,
    message: 'task',
    apiKey: 'k',
    baseUrl: server.baseUrl,
    askHuman: async () => 'forty-two',
  });
  expect(result.status).toBe('COMPLETED');
  return { agent, workDir, paths: result.paths, server };
}

/** Keeps the journal up to and including the first event that matches, as a crash right after it would. */
function crashAfter(paths: { journal: string; metadata: string }, match: (event: JournalEvent) => boolean): void {
  const lines = readFileSync(paths.journal, 'utf8').split('\n');
  const index = readJournal(paths.journal).findIndex(match);
  expect(index).toBeGreaterThanOrEqual(0);
  writeFileSync(paths.journal, `${lines.slice(0, index + 1).join('\n')}\n`);
  updateMetadata(paths.metadata, { status: 'RUNNING', end_time: null });
}

const refuseToAsk = async (): Promise<string> => {
  throw new Error('the human must not be asked twice');
};

describe('recovery after kill -9', () => {
  it('takes the answer already journaled (HUMAN_INPUT_RECEIVED) instead of asking the human again', async () => {
    const { agent, workDir, paths, server } = await finishedRun([
      { tool_calls: [{ id: 'call_ask', name: 'ask_human', arguments: { prompt: 'Number?' } }] },
      { content: 'ok' },
      { content: 'ok again' },
    ]);
    crashAfter(paths, (event) => event.type === 'HUMAN_INPUT_RECEIVED');
    const result = await continueRun({ workDir, agent, apiKey: 'k', baseUrl: server.baseUrl, askHuman: refuseToAsk });
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'ok again' });
    const events = readJournal(paths.journal);
    expect(events.filter((event) => event.type === 'HUMAN_INPUT_REQUEST')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'ACTION_RESULT')).toMatchObject([
      { action_id: 'call_ask', observation_content: 'forty-two' },
    ]);
    expect(server.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_ask', content: 'forty-two' });
  });

  it('finishes a run killed after its final answer without calling the model again', async () => {
    const { agent, workDir, paths, server } = await finishedRun([{ content: 'the answer' }]);
    crashAfter(paths, (event) => event.type === 'THOUGHT');
    const result = await continueRun({ workDir, agent, apiKey: 'k', baseUrl: server.baseUrl });
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'the answer' });
    expect(server.requests).toHaveLength(1);
    expect(readJournal(paths.journal).at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
    expect(readMetadata(paths.metadata)).toMatchObject({ status: 'COMPLETED' });
  });

  it('trusts the journal over a metadata.json left RUNNING by a kill after ENGINE_END', async () => {
    const { agent, workDir, paths, server } = await finishedRun([{ content: 'done' }]);
    updateMetadata(paths.metadata, { status: 'RUNNING', end_time: null });
    await expect(continueRun({ workDir, agent, apiKey: 'k', baseUrl: server.baseUrl })).rejects.toThrow(
      'Run is COMPLETED. To continue, provide a message using -m/--message',
    );
    expect(readMetadata(paths.metadata)).toMatchObject({ status: 'COMPLETED' });
  });

  it('repairs a torn last line, keeps the torn bytes and records the repair', async () => {
    const { agent, workDir, paths, server } = await finishedRun([
      { tool_calls: [{ id: 'call_ask', name: 'ask_human', arguments: { prompt: 'Number?' } }] },
      { content: 'ok' },
      { content: 'resumed' },
    ]);
    crashAfter(paths, (event) => event.type === 'ACTION_REQUEST');
    writeFileSync(paths.journal, `${readFileSync(paths.journal, 'utf8')}{"seq":5,"type":"HUMAN_INP`);
    const result = await continueRun({ workDir, agent, apiKey: 'k', baseUrl: server.baseUrl, askHuman: async () => 'seven' });
    expect(result.status).toBe('COMPLETED');
    const events = readJournal(paths.journal);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const repair = events.find((event) => event.type === 'SYSTEM_MESSAGE' && event.content.includes('cut off by a crash'));
    expect(repair).toBeDefined();
    const savedTo = /kept in (\S+)\.$/.exec(repair!.type === 'SYSTEM_MESSAGE' ? repair!.content : '')![1]!;
    expect(readFileSync(savedTo, 'utf8')).toBe('{"seq":5,"type":"HUMAN_INP');
    expect(events.filter((event) => event.type === 'ACTION_RESULT')).toMatchObject([
      { action_id: 'call_ask', observation_content: 'seven' },
    ]);
  });
});

describe('continueRun arguments', () => {
  it('refuses a run id that is not one (never a path out of .delta/)', async () => {
    const work = await createTempDir('work-');
    writeFileSync(join(work, 'metadata.json'), '{}');
    await expect(continueRun({ workDir: join(work, 'w', 'x'), runId: '../../..' })).rejects.toThrow(/No existing run found/);
    // `..` would make .delta/.. (the workspace itself, with its metadata.json) the run directory.
    await expect(continueRun({ workDir: work, runId: '..' })).rejects.toThrow('".." is not a run id.');
    await expect(continueRun({ workDir: work, runId: '20260101_000000_abcdef' })).rejects.toThrow(
      /No existing run found .* with id 20260101_000000_abcdef/,
    );
  });
});
