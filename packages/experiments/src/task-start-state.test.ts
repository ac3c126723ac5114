import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createNoteAgent, noteScript } from './batch-fixture.test-support.js';
import type { Task } from './dataset.js';
import { prepareWorkspace } from './prepare-workspace.js';
import { runBatch } from './run-batch.js';
import { batchRunStartState, recordTaskStartState, taskStartDirectory } from './task-start-state.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ script: noteScript() });
});
afterAll(() => llm.close());
afterEach(() => cleanupTempDirs());

async function taskWithWorkspace(): Promise<{ directory: string; task: Task }> {
  const directory = await createTempDir();
  mkdirSync(join(directory, 'src', 'lib'), { recursive: true });
  writeFileSync(join(directory, 'src', 'lib', 'a.txt'), 'first\n');
  return { directory, task: { id: 't1', message: 'Say 2', workspace: join(directory, 'src'), files: { 'b.txt': 'b\n' } } };
}

describe('the start state a batch records for each task', () => {
  it('is copied once from the first prepared run; a later run whose workspace directory changed is refused, naming the file', async () => {
    const { directory, task } = await taskWithWorkspace();
    const out = join(directory, 'out');
    const first = join(out, 't1', 'm', '1');
    prepareWorkspace(first, task);
    recordTaskStartState(out, task, first);
    expect(readFileSync(join(taskStartDirectory(out, 't1'), 'lib', 'a.txt'), 'utf8')).toBe('first\n');
    expect(readdirSync(join(out, '.batch', 'start'))).toEqual(['t1']);

    const same = join(out, 't1', 'm', '2');
    prepareWorkspace(same, task);
    expect(() => recordTaskStartState(out, task, same)).not.toThrow();

    writeFileSync(join(directory, 'src', 'lib', 'a.txt'), 'edited\n');
    const later = join(out, 't1', 'm', '3');
    prepareWorkspace(later, task);
    expect(() => recordTaskStartState(out, task, later)).toThrow(
      expect.objectContaining({ code: 'BATCH_CHANGED', message: expect.stringContaining('changed: lib/a.txt') }),
    );
    // The record keeps what the first run started from.
    expect(readFileSync(join(taskStartDirectory(out, 't1'), 'lib', 'a.txt'), 'utf8')).toBe('first\n');
  });

  it('fills a replay workspace of a batch run from the record, and is nothing for a workspace outside a batch', async () => {
    const { directory, task } = await taskWithWorkspace();
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ ...task, workspace: 'src' })}\n`);
    const out = join(directory, 'out');
    const summary = await runBatch({ tasksFile, agent: await createNoteAgent(), out, baseUrl: llm.baseUrl, apiKey: 'k' });
    expect(summary).toMatchObject({ runs: 1, completed: 1 });
    writeFileSync(join(directory, 'src', 'lib', 'a.txt'), 'edited\n');

    const fill = batchRunStartState(join(out, 't1', 'fake-model', '1'));
    const into = join(directory, 'replay');
    mkdirSync(into);
    fill!(into);
    expect(readFileSync(join(into, 'lib', 'a.txt'), 'utf8')).toBe('first\n');
    expect(readFileSync(join(into, 'b.txt'), 'utf8')).toBe('b\n');
    // What the run's tool wrote is not part of its start state.
    expect(readdirSync(into).sort()).toEqual(['b.txt', 'lib']);

    expect(batchRunStartState(join(out, 't1', 'fake-model'))).toBeUndefined();
    expect(batchRunStartState(join(out, 't1', 'other-model', '1'))).toBeUndefined();
    expect(batchRunStartState(directory)).toBeUndefined();
  });
});
