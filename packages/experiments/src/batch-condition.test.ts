import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { batchDefinitionFile } from './batch-layout.js';
import { createNoteAgent, noteScript, writeTasks } from './batch-fixture.test-support.js';
import { collectBatchRuns } from './collect-runs.js';
import { runBatch } from './run-batch.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ script: noteScript() });
});
afterAll(() => llm.close());
afterEach(() => cleanupTempDirs());

const definitionOf = (out: string) => JSON.parse(readFileSync(batchDefinitionFile(out), 'utf8'));

describe("a batch's agent version", () => {
  it('is recorded in definition.json and in each run, and a batch recorded without it resumes and records it', async () => {
    const agent = await createNoteAgent();
    const tasksFile = await writeTasks(2);
    const out = join(await createTempDir(), 'out');
    const options = { tasksFile, agent, out, baseUrl: llm.baseUrl, apiKey: 'k' };
    await runBatch(options);
    const recorded = definitionOf(out);
    expect(recorded.agent_fingerprint.files.map((file: { path: string }) => file.path)).toEqual([
      'agent.yaml',
      'context.yaml',
      'system_prompt.md',
    ]);
    const start = readJournal(runPaths(join(out, 't1', 'fake-model', '1'), 'run-1').journal).find((event) => event.type === 'ENGINE_START');
    expect(start?.type === 'ENGINE_START' && start.agent_fingerprint).toEqual(recorded.agent_fingerprint);

    // As an older engine wrote it: no fingerprint. The same command resumes it, and records the version now.
    const { agent_fingerprint: _, ...older } = recorded;
    writeFileSync(batchDefinitionFile(out), JSON.stringify(older));
    const again = await runBatch(options);
    expect(again).toMatchObject({ runs: 2, completed: 2, errors: 0 });
    expect(definitionOf(out).agent_fingerprint).toEqual(recorded.agent_fingerprint);
  });

  it('--condition adds a version with runs of its own, reported as its own group; a name already used must match', async () => {
    const agent = await createNoteAgent();
    const tasksFile = await writeTasks(1);
    const out = join(await createTempDir(), 'out');
    const options = { tasksFile, agent, out, baseUrl: llm.baseUrl, apiKey: 'k' };
    await runBatch(options);
    writeFileSync(join(agent, 'system_prompt.md'), 'Another prompt.\n');
    await expect(runBatch(options)).rejects.toMatchObject({ code: 'BATCH_CHANGED' });
    const second = await runBatch({ ...options, condition: 'v2' });
    expect(second).toMatchObject({ runs: 1, completed: 1, executed: 1 });
    // The same condition again: nothing left to do.
    expect(await runBatch({ ...options, condition: 'v2' })).toMatchObject({ runs: 1, executed: 0 });
    expect(collectBatchRuns(out).rows.map((row) => [row.model, row.status])).toEqual([
      ['fake-model', 'COMPLETED'],
      ['fake-model+v2', 'COMPLETED'],
    ]);
    writeFileSync(join(agent, 'system_prompt.md'), 'A third prompt.\n');
    await expect(runBatch({ ...options, condition: 'v2' })).rejects.toThrow(/condition v2 of the batch .* system_prompt\.md changed/);
    await expect(runBatch({ ...options, condition: '../x' })).rejects.toMatchObject({ code: 'USAGE' });
  });
});

describe('--condition on an agent that did not change', () => {
  it('is refused, naming the version it already is, and records nothing', async () => {
    const agent = await createNoteAgent();
    const tasksFile = await writeTasks(1);
    const out = join(await createTempDir(), 'out');
    const options = { tasksFile, agent, out, baseUrl: llm.baseUrl, apiKey: 'k' };
    await runBatch(options);
    const before = readFileSync(batchDefinitionFile(out), 'utf8');
    await expect(runBatch({ ...options, condition: 'same' })).rejects.toThrow(
      "--condition same: the agent is the same version as the batch's first version; a condition is a changed agent.",
    );
    writeFileSync(join(agent, 'system_prompt.md'), 'Another prompt.\n');
    await runBatch({ ...options, condition: 'v2' });
    await expect(runBatch({ ...options, condition: 'v3' })).rejects.toThrow(
      '--condition v3: the agent is the same version as its condition v2; a condition is a changed agent.',
    );
    expect(readFileSync(batchDefinitionFile(out), 'utf8')).not.toBe(before);
    expect(definitionOf(out).conditions.map((condition: { name: string }) => condition.name)).toEqual(['v2']);
  });
});
