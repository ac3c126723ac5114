// What the CommandLauncher test files share: temp directories and launchers closed after each test, and
// watching the processes a launcher starts.
import { expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessGroupAlive, readProcessStat } from '@delta/process-identity';
import { CommandLauncher, runCommand } from './index.js';

const dirs: string[] = [];
export const launchers: CommandLauncher[] = [];
export function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-launcher-'));
  dirs.push(dir);
  return dir;
}
export function launcher(nodePath?: string): CommandLauncher {
  const started = CommandLauncher.start(nodePath);
  launchers.push(started);
  return started;
}

/** Closes the test's launchers and removes its directories (an afterEach). */
export async function cleanUp(): Promise<void> {
  // A test may have made a write fail on purpose.
  for (const started of launchers.splice(0)) await started.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
export const files = (dir: string) => ({ stdoutFile: join(dir, 'out.log'), stderrFile: join(dir, 'err.log') });

/** The pid of the launcher process itself, read from the process table: the parent of a launched command. */
export function parentOf(pid: number): number {
  return readProcessStat(pid)!.parentPid;
}

/**
 * Waits until a process group has no live member left: after that, nothing it would have done (touch
 * a marker file, say) can still happen. Polls the process table; the deadline only bounds a failure.
 */
export async function groupGone(processGroup: number): Promise<void> {
  await expect
    .poll(() => isProcessGroupAlive(processGroup), {
      timeout: 30_000,
      interval: 10,
      message: `process group ${processGroup} is still running`,
    })
    .toBe(false);
}

/** Starts `sh -c script` through `through`; resolves once it has started, with the run, its pid and the launcher's pid. */
export async function startThrough(through: CommandLauncher, dir: string, script: string) {
  let started!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (started = resolve));
  const running = runCommand({ file: 'sh', args: ['-c', script], cwd: dir, env, ...files(dir), launcher: through, onStart: started });
  const commandPid = await pid;
  return { running, pid: commandPid, launcherPid: parentOf(commandPid) };
}
