import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandLauncher, RunSandbox, runCommand, type CommandResult } from '../index.js';
import { stageOutput } from './stage-output.js';
import { bubblewrapForTests } from './sandbox.test-support.js';

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
  it('cannot be rewritten by a later call through a hard link the call made to it in /tmp/.delta-io', async () => {
    const sandbox = RunSandbox.start(
      { mode: 'workspace-write', network: true, workspace, protectedPaths: [control], visiblePaths: [], writablePaths: [] },
      bubblewrap.path!,
    );
    try {
      const first = await sh(sandbox, 'echo honest; ln "$(readlink /proc/$$/fd/1)" /tmp/.delta-io/keep && echo linked >&2');
      const firstFile = join(control, `call-${call}.out`);
      expect(first.exitCode).toBe(0);
      expect(readFileSync(join(control, `call-${call}.err`), 'utf8')).toBe('linked\n');
      const second = await sh(sandbox, 'printf "FORGED by a later call\\n" > /tmp/.delta-io/keep && echo rewrote');
      expect(second.exitCode).toBe(0);
      expect(readFileSync(join(control, `call-${call}.out`), 'utf8')).toBe('rewrote\n');
      // The record kept what the call wrote, and is no longer the file the tools hold.
      expect(readFileSync(firstFile, 'utf8')).toBe('honest\n');
      expect(statSync(firstFile).nlink).toBe(1);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('stageOutput', () => {
  it('keeps the record as it is (same file) when nothing else links to it', () => {
    const tmp = mkdtempSync(join(root, 'tmp-'));
    mkdirSync(join(tmp, '.delta-io'));
    const record = join(root, 'plain.out');
    const staged = stageOutput(record, tmp);
    writeFileSync(join(tmp, staged.inside.slice('/tmp/'.length)), 'output\n');
    const inode = statSync(record).ino;
    staged.finish();
    expect(readFileSync(record, 'utf8')).toBe('output\n');
    expect(statSync(record)).toMatchObject({ ino: inode, nlink: 1 });
  });

  it('gives the record a fresh copy when another name still links to it', () => {
    const tmp = mkdtempSync(join(root, 'tmp-'));
    mkdirSync(join(tmp, '.delta-io'));
    const record = join(root, 'linked.out');
    const staged = stageOutput(record, tmp);
    const inside = join(tmp, staged.inside.slice('/tmp/'.length));
    writeFileSync(inside, 'output\n');
    linkSync(inside, join(tmp, '.delta-io', 'keep'));
    staged.finish();
    writeFileSync(join(tmp, '.delta-io', 'keep'), 'FORGED\n');
    expect(readFileSync(record, 'utf8')).toBe('output\n');
    expect(statSync(record).nlink).toBe(1);
  });
});
