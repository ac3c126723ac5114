// Issue 42, fault 9: a 3 GB sparse file in a task's workspace became 3.1 GB in OUT/.batch/start and again in
// every run's workspace. Holes are now kept, and a task workspace over its bound is refused before any run.
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTestResources, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runBatch } from './run-batch.js';
import { taskStartDirectory } from './task-start-state.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await cleanupTestResources();
});

/** A sparse file of `size` bytes holding `marker` at `at` (and a hole everywhere else). */
function sparseFile(file: string, size: number, marker: string, at: number): void {
  writeFileSync(file, '');
  truncateSync(file, size);
  const descriptor = openSync(file, 'r+');
  try {
    writeSync(descriptor, Buffer.from(marker), 0, marker.length, at);
  } finally {
    closeSync(descriptor);
  }
}

function readAt(file: string, at: number, length: number): string {
  const descriptor = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    readSync(descriptor, buffer, 0, length, at);
    return buffer.toString();
  } finally {
    closeSync(descriptor);
  }
}

const allocated = (file: string) => statSync(file).blocks * 512;

async function batchSetting(files: (workspace: string) => void) {
  llm = await startFakeLlm({ script: () => ({ content: 'done' }) });
  const agent = await createTempAgent({ agentYaml: { name: 'plain', llm: { model: 'fake-model', max_retries: 0 } } });
  const directory = await createTempDir('sparse-');
  const workspace = join(directory, 'task-files');
  mkdirSync(workspace);
  files(workspace);
  const tasksFile = join(directory, 'tasks.jsonl');
  writeFileSync(tasksFile, `${JSON.stringify({ id: 'big', message: 'look', workspace: 'task-files' })}\n`);
  return { agent, tasksFile, out: join(directory, 'out'), workspace, baseUrl: llm.baseUrl };
}

describe('a task workspace with a sparse file', () => {
  it('is copied with its holes into OUT/.batch/start and the run’s workspace', async () => {
    const size = 2 * GIB;
    const setting = await batchSetting((workspace) => {
      sparseFile(join(workspace, 'disk.img'), size, 'MIDDLE', GIB + 5);
      writeFileSync(join(workspace, 'notes.txt'), 'dense\n');
    });
    expect(allocated(join(setting.workspace, 'disk.img'))).toBeLessThan(MIB);
    const summary = await runBatch({
      tasksFile: setting.tasksFile,
      agent: setting.agent,
      out: setting.out,
      baseUrl: setting.baseUrl,
      apiKey: 'k',
    });
    expect(summary).toMatchObject({ runs: 1, completed: 1 });
    for (const copy of [taskStartDirectory(setting.out, 'big'), join(setting.out, 'big', 'fake-model', '1')]) {
      const image = join(copy, 'disk.img');
      expect(statSync(image).size).toBe(size);
      // A few pages at most, where the source had 2 GiB of holes.
      expect(allocated(image)).toBeLessThan(MIB);
      expect(readAt(image, GIB + 5, 6)).toBe('MIDDLE');
      expect(readAt(image, 0, 4)).toBe('\0\0\0\0');
      expect(readAt(join(copy, 'notes.txt'), 0, 6)).toBe('dense\n');
    }
  });

  it('over the bound of file sizes (8 GiB) is refused before any run starts, naming the task, the file and the fix', async () => {
    const setting = await batchSetting((workspace) => sparseFile(join(workspace, 'huge.img'), 9 * GIB, 'END', 9 * GIB - 3));
    const attempt = runBatch({
      tasksFile: setting.tasksFile,
      agent: setting.agent,
      out: setting.out,
      baseUrl: setting.baseUrl,
      apiKey: 'k',
    });
    await expect(attempt).rejects.toMatchObject({
      code: 'DATASET_INVALID',
      file: join(setting.workspace, 'huge.img'),
      message: expect.stringContaining(
        `The task big cannot be run: its workspace directory ${setting.workspace} holds files of more than 8 GiB in all`,
      ),
      hint: expect.stringContaining('delta batch --max-task-workspace size=16G'),
    });
    expect(llm!.requests).toEqual([]);
    expect(existsSync(setting.out)).toBe(false);
  });

  it('over a bound the caller set (disk space, entries) is refused too', async () => {
    const setting = await batchSetting((workspace) => {
      writeFileSync(join(workspace, 'dense.bin'), Buffer.alloc(2 * MIB, 1));
      for (const name of ['a', 'b', 'c']) writeFileSync(join(workspace, name), name);
    });
    const options = { tasksFile: setting.tasksFile, agent: setting.agent, out: setting.out, baseUrl: setting.baseUrl, apiKey: 'k' };
    await expect(runBatch({ ...options, taskWorkspaceLimits: { allocatedBytes: MIB } })).rejects.toMatchObject({
      code: 'DATASET_INVALID',
      message: expect.stringContaining('holds more than 1 MiB on disk; the largest file is'),
      hint: expect.stringContaining('--max-task-workspace allocated='),
    });
    await expect(runBatch({ ...options, taskWorkspaceLimits: { entries: 3 } })).rejects.toMatchObject({
      code: 'DATASET_INVALID',
      message: expect.stringContaining('holds more than 3 entries'),
    });
    expect(llm!.requests).toEqual([]);
    expect(await runBatch({ ...options, taskWorkspaceLimits: { allocatedBytes: 4 * MIB } })).toMatchObject({ completed: 1 });
  });
});
