import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CommandLauncher, RunSandbox, runCommand, type CommandResult } from '../index.js';
import { execFileSync } from 'node:child_process';
import { open as openAsync } from 'node:fs/promises';
import { stageOutput } from './stage-output.js';
import { bubblewrapForTests, until } from './sandbox.test-support.js';

const bubblewrap = bubblewrapForTests('the sandbox hard-link tests');
const skip = bubblewrap.skip;

const root = mkdtempSync(join(tmpdir(), 'delta-sandbox-link-test-'));
const workspace = join(root, 'workspace');
const control = join(workspace, '.delta');
for (const dir of [workspace, control]) mkdirSync(dir, { recursive: true });

let launcher: CommandLauncher;
beforeAll(() => {
  launcher = CommandLauncher.start();
});
afterAll(async () => {
  await launcher.close();
  rmSync(root, { recursive: true, force: true });
});

let call = 0;
function sh(sandbox: RunSandbox, script: string): Promise<CommandResult> {
  call += 1;
  return runCommand({
    file: 'sh',
    args: ['-c', script],
    cwd: workspace,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdoutFile: join(control, `call-${call}.out`),
    stderrFile: join(control, `call-${call}.err`),
    launcher,
    sandbox,
  });
}

describe.skipIf(skip)("a finished call's output record (real bubblewrap)", () => {
  it('cannot be rewritten by a process the call left running with its output open', async () => {
    const sandbox = RunSandbox.start(
      { mode: 'workspace-write', network: true, workspace, protectedPaths: [control], visiblePaths: [], writablePaths: [] },
      bubblewrap.path!,
    );
    try {
      // It leaves its process group (setsid), keeps the call's stdout, and writes on it once the call has
      // ended: before, that was the record itself.
      const first = await sh(
        sandbox,
        "echo honest; setsid sh -c 'touch left; while [ ! -e go ]; do sleep 0.02; done; echo FORGED; touch wrote' & while [ ! -e left ]; do sleep 0.02; done; echo left",
      );
      const firstFile = join(control, `call-${call}.out`);
      expect(first.exitCode).toBe(0);
      writeFileSync(join(workspace, 'go'), '');
      await until(() => existsSync(join(workspace, 'wrote')), 'the process left running to write');
      expect(readFileSync(firstFile, 'utf8')).toBe('honest\nleft\n');
      expect(statSync(firstFile).nlink).toBe(1);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('stageOutput', () => {
  it('replaces the record, once the call has ended, by a copy no process holds', () => {
    const io = mkdtempSync(join(root, 'io-'));
    const record = join(root, 'plain.out');
    const staged = stageOutput(record, io);
    const held = openSync(join(io, staged.inside.slice(2)), 'a');
    writeSync(held, 'output\n');
    const inode = statSync(record).ino;
    staged.finish();
    writeSync(held, 'FORGED\n');
    closeSync(held);
    expect(readFileSync(record, 'utf8')).toBe('output\n');
    expect(statSync(record).ino).not.toBe(inode);
    expect(statSync(record).nlink).toBe(1);
    expect(readdirSync(io)).toEqual([]);
  });

  // Freeing a file's blocks is the slow part of the replacement (docs/decisions/step-latency.md): the old
  // file leaves the launcher's directory at once, and is freed off the engine's thread, a moment later.
  it('frees the old file after the call, not during it', async () => {
    const io = mkdtempSync(join(root, 'io-'));
    const freeing = join(root, `freeing-${basename(io)}`);
    const record = join(root, 'freed.out');
    const staged = stageOutput(record, io, freeing);
    const held = openSync(join(io, staged.inside.slice(2)), 'a');
    writeSync(held, 'output\n');
    // Every thread of libuv's pool waits on opening a FIFO no one writes to, so that nothing done off this
    // thread can happen until they are let go: what finish() did on this thread is all there is to see.
    const release = occupyThreadPool(root);
    staged.finish();
    expect(readdirSync(io)).toEqual([]);
    expect(readFileSync(record, 'utf8')).toBe('output\n');
    expect(fstatSync(held).nlink).toBe(1);
    await release();
    await vi.waitFor(() => expect(fstatSync(held).nlink).toBe(0));
    expect(readdirSync(freeing)).toEqual([]);
    closeSync(held);
  });
});

/**
 * Holds every thread of libuv's pool (UV_THREADPOOL_SIZE, 4 by default) in an open(2) of a FIFO for reading,
 * which waits for a writer; returns how to let them go (a writer opens each FIFO) and waits until they are.
 */
function occupyThreadPool(directory: string): () => Promise<void> {
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const fifos = Array.from({ length: size }, (_, index) => join(mkdtempSync(join(directory, 'pool-')), `fifo-${index}`));
  execFileSync('mkfifo', fifos);
  const readers = fifos.map((fifo) => openAsync(fifo, 'r'));
  return async () => {
    // O_RDWR never waits for the other end, and gives each waiting reader its writer.
    const writers = fifos.map((fifo) => openSync(fifo, 'r+'));
    for (const reader of await Promise.all(readers)) await reader.close();
    for (const writer of writers) closeSync(writer);
  };
}
