import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '@delta/process-identity';
import { CommandLauncher, runCommand } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'delta-leftovers-'));
const launcher = CommandLauncher.start();
afterAll(async () => {
  await launcher.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The group's members are killed, not waited for: they are gone once the kernel has delivered the signal. */
async function groupGone(processGroup: number): Promise<void> {
  await expect
    .poll(() => isProcessGroupAlive(processGroup), {
      timeout: 30_000,
      interval: 10,
      message: `process group ${processGroup} still has live members`,
    })
    .toBe(false);
}

// 50 background sleeps that would live for five minutes; the command itself exits at once.
const script = 'for i in $(seq 50); do sleep 300 & done; echo started';

describe('a finished command leaves no process behind', () => {
  for (const through of ['forked from this process', 'started by the launcher'] as const) {
    it(`stops the 50 background processes of its group once it exits (${through})`, async () => {
      let pid = 0;
      const result = await runCommand({
        file: 'sh',
        args: ['-c', script],
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdoutFile: join(dir, `${through}.out`),
        stderrFile: join(dir, `${through}.err`),
        onStart: (started) => (pid = started),
        ...(through === 'started by the launcher' ? { launcher } : {}),
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout.head).toBe('started\n');
      expect(pid).toBeGreaterThan(0);
      await groupGone(pid);
      expect(isProcessGroupAlive(pid)).toBe(false);
    });
  }

  it('also when its output goes through pipes (the background processes held them open)', async () => {
    let pid = 0;
    const result = await runCommand({
      file: 'sh',
      args: ['-c', script],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      onStart: (started) => (pid = started),
    });
    expect(result.stdout.head).toBe('started\n');
    await groupGone(pid);
  });
});
