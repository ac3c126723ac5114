import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '@delta/process-identity';
import { CommandLauncher, runCommand, type RunCommandOptions } from './index.js';
import { cleanUp, env, files, groupGone, launcher, launchers, parentOf, startThrough, temp } from './launcher.test-support.js';

afterEach(cleanUp);

describe('CommandLauncher', () => {
  it('ends a command in flight with an error when the launcher dies, stops its group, and is then not used', async () => {
    const dir = temp();
    const through = launcher();
    const marker = join(dir, 'survived');
    const { running, pid, launcherPid } = await startThrough(through, dir, `sleep 1; touch ${marker}`);
    process.kill(launcherPid, 'SIGKILL');
    const result = await running;
    expect(result.exitCode).toBeNull();
    expect(result.startError).toMatch(/^the command launcher was killed by SIGKILL/);
    expect(through.alive).toBe(false);
    await groupGone(pid);
    expect(existsSync(marker)).toBe(false);
    // With the launcher gone, commands are started directly, and still work.
    let parent: number | undefined;
    const after = await runCommand({
      file: 'sleep',
      args: ['0.1'],
      cwd: dir,
      env,
      ...files(dir),
      launcher: through,
      onStart: (pid) => {
        parent = parentOf(pid);
      },
    });
    expect(after.exitCode).toBe(0);
    expect(parent).toBe(process.pid);
  });

  it('ends (and kills) a launcher that answers with what is not a reply, and this process goes on', async () => {
    const dir = temp();
    // What a tool that took over the sandbox's launcher could send: a line that is not JSON.
    const garbled = CommandLauncher.startCommand({
      file: 'sh',
      args: ['-c', 'read line; echo "{not a reply"; exec sleep 600'],
      env,
      pidsAreLocal: true,
    });
    launchers.push(garbled);
    const launched = garbled.launch({ file: 'true', args: [], cwd: dir, env, ...files(dir) });
    expect(await launched.started).toBeUndefined();
    expect(await launched.ended).toEqual({
      error: { code: 'ELAUNCHER', message: 'the command launcher sent what is not a reply: {not a reply' },
    });
    expect(garbled.alive).toBe(false);
    // It was killed: its exit is seen (a sleep left running would never exit).
    const child = garbled.childProcess;
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('falls back to starting commands directly when the launcher cannot run at all', async () => {
    const dir = temp();
    const broken = launcher(join(dir, 'no-such-node'));
    const options: RunCommandOptions = { file: 'echo', args: ['direct'], cwd: dir, env, ...files(dir), launcher: broken };
    const result = await runCommand(options);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.head).toBe('direct\n');
    expect(broken.alive).toBe(false);
  });

  it('lets a command in flight finish after close(), then exits; later commands start directly', async () => {
    const dir = temp();
    const through = launcher();
    const { running, launcherPid } = await startThrough(through, dir, 'sleep 0.3; echo finished');
    const closed = through.close();
    const result = await running;
    await closed;
    expect(result.exitCode).toBe(0);
    expect(result.stdout.head).toBe('finished\n');
    // close() resolves once the launcher has exited (and been collected).
    expect(isProcessAlive(launcherPid)).toBe(false);
    expect(existsSync(`/proc/${launcherPid}`)).toBe(false);
    expect(through.alive).toBe(false);
  });

  it('is shared by every lease of this process, and closed when the last lease is released', async () => {
    const dir = temp();
    const first = CommandLauncher.shared();
    const second = CommandLauncher.shared();
    expect(second.launcher).toBe(first.launcher);
    const { running, launcherPid } = await startThrough(first.launcher, dir, 'sleep 0.3; echo finished');
    await first.release();
    // Released twice, a lease counts once: the second lease still holds the launcher.
    await first.release();
    expect(first.launcher.alive).toBe(true);
    expect(isProcessAlive(launcherPid)).toBe(true);
    await second.release();
    expect((await running).stdout.head).toBe('finished\n');
    expect(first.launcher.alive).toBe(false);
    expect(existsSync(`/proc/${launcherPid}`)).toBe(false);
    // The next lease starts a new one.
    const third = CommandLauncher.shared();
    expect(third.launcher).not.toBe(first.launcher);
    expect(third.launcher.alive).toBe(true);
    await third.release();
  });

  it('starts a new shared launcher for the next lease when the last one died', async () => {
    const dir = temp();
    const first = CommandLauncher.shared();
    const { running, launcherPid } = await startThrough(first.launcher, dir, 'exec sleep 5');
    process.kill(launcherPid, 'SIGKILL');
    await running;
    expect(first.launcher.alive).toBe(false);
    const second = CommandLauncher.shared();
    expect(second.launcher).not.toBe(first.launcher);
    const result = await runCommand({ file: 'echo', args: ['again'], cwd: dir, env, ...files(dir), launcher: second.launcher });
    expect(result.stdout.head).toBe('again\n');
    await first.release();
    expect(second.launcher.alive).toBe(true);
    await second.release();
  });
});
