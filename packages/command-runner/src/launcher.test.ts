import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive, isProcessGroupAlive, processStartTicks, readProcessStat } from '@delta/process-identity';
import { CommandLauncher, runCommand, type RunCommandOptions } from './index.js';

const dirs: string[] = [];
const launchers: CommandLauncher[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-launcher-'));
  dirs.push(dir);
  return dir;
}
function launcher(nodePath?: string): CommandLauncher {
  const started = CommandLauncher.start(nodePath);
  launchers.push(started);
  return started;
}
afterEach(async () => {
  // A test may have made a write fail on purpose.
  for (const started of launchers.splice(0)) await started.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const files = (dir: string) => ({ stdoutFile: join(dir, 'out.log'), stderrFile: join(dir, 'err.log') });

/** The pid of the launcher process itself, read from the process table: the parent of a launched command. */
function parentOf(pid: number): number {
  return readProcessStat(pid)!.parentPid;
}

/**
 * Waits until a process group has no live member left: after that, nothing it would have done (touch
 * a marker file, say) can still happen. Polls the process table; the deadline only bounds a failure.
 */
async function groupGone(processGroup: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (isProcessGroupAlive(processGroup)) {
    if (Date.now() > deadline) throw new Error(`process group ${processGroup} is still running`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts `sh -c script` through `through`; resolves once it has started, with the run, its pid and the launcher's pid. */
async function startThrough(through: CommandLauncher, dir: string, script: string) {
  let started!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (started = resolve));
  const running = runCommand({ file: 'sh', args: ['-c', script], cwd: dir, env, ...files(dir), launcher: through, onStart: started });
  const commandPid = await pid;
  return { running, pid: commandPid, launcherPid: parentOf(commandPid) };
}

describe('CommandLauncher', () => {
  it('starts commands from its own process: argv without a shell, stdin, only the given environment, outputs to files', async () => {
    const dir = temp();
    const through = launcher();
    process.env.DELTA_LAUNCHER_SECRET = 'leak';
    let pid: number | undefined;
    try {
      const result = await runCommand({
        file: 'sh',
        args: [
          '-c',
          'cat; echo "[$1]"; echo "pgid $(cut -d \' \' -f 5 /proc/$$/stat)"; env; echo err >&2; exit 3',
          '--',
          '$(touch pwned) ; x',
        ],
        cwd: dir,
        env: { ...env, ONLY: 'me' },
        stdin: 'from stdin\n',
        ...files(dir),
        launcher: through,
        onStart: (started) => {
          pid = started;
        },
      });
      expect(result.exitCode).toBe(3);
      expect(result.startError).toBeUndefined();
      const out = readFileSync(join(dir, 'out.log'), 'utf8');
      expect(result.stdout.head).toBe(out);
      expect(out.startsWith('from stdin\n[$(touch pwned) ; x]\n')).toBe(true);
      // Its own process group, led by the command.
      expect(out).toContain(`pgid ${pid}\n`);
      expect(out).toContain('ONLY=me');
      expect(out).not.toContain('leak');
      expect(readFileSync(join(dir, 'err.log'), 'utf8')).toBe('err\n');
      expect(existsSync(join(dir, 'pwned'))).toBe(false);
    } finally {
      delete process.env.DELTA_LAUNCHER_SECRET;
    }
  });

  it('gives a command a large stdin byte for byte, written to the launcher a piece at a time, and goes on launching after it', async () => {
    const dir = temp();
    const through = launcher();
    // 12 MB with characters of every width, so that some fall where the stdin is cut into pieces.
    const stdin = 'ab"\\é😀\n'.repeat(1_000_000);
    const result = await runCommand({ file: 'sh', args: ['-c', 'cat'], cwd: dir, env, stdin, ...files(dir), launcher: through });
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'out.log'), 'utf8') === stdin).toBe(true);
    const next = await runCommand({ file: 'sh', args: ['-c', 'cat'], cwd: dir, env, stdin: 'next\n', ...files(dir), launcher: through });
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('next\n');
    expect(next.exitCode).toBe(0);
  });

  it('is the parent of what it starts, not this process', async () => {
    const dir = temp();
    const through = launcher();
    let parent: number | undefined;
    const result = await runCommand({
      file: 'sleep',
      args: ['0.2'],
      cwd: dir,
      env,
      ...files(dir),
      launcher: through,
      onStart: (pid) => {
        parent = parentOf(pid);
        expect(processStartTicks(pid)).toMatch(/^\d+$/);
      },
    });
    expect(result.exitCode).toBe(0);
    expect(parent).toBeDefined();
    expect(parent).not.toBe(process.pid);
    expect(parentOf(parent!)).toBe(process.pid);
    // ps and top name it, rather than showing its whole program.
    expect(readFileSync(`/proc/${parent}/comm`, 'utf8').trim()).toBe('delta-launcher');
  });

  it('reports what cannot start as runCommand does, and leaves the output files in place', async () => {
    const dir = temp();
    const through = launcher();
    const missing = await runCommand({ file: 'no-such-command-xyz', args: [], cwd: dir, env, ...files(dir), launcher: through });
    expect(missing.exitCode).toBeNull();
    expect(missing.startError).toBe('command not found: no-such-command-xyz');
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('');
    writeFileSync(join(dir, 'not-executable'), '#!/bin/sh\n');
    const refused = await runCommand({ file: join(dir, 'not-executable'), args: [], cwd: dir, env, ...files(dir), launcher: through });
    expect(refused.startError).toBe(`permission denied: ${join(dir, 'not-executable')} is not executable`);
    // The launcher is still there for the next one.
    const fine = await runCommand({ file: 'echo', args: ['still here'], cwd: dir, env, ...files(dir), launcher: through });
    expect(fine.stdout.head).toBe('still here\n');
  });

  it('stops the whole process group on timeout and on abort', async () => {
    const dir = temp();
    const through = launcher();
    const marker = join(dir, 'late');
    let group = 0;
    const timedOut = await runCommand({
      file: 'sh',
      args: ['-c', `(sleep 1; touch ${marker}) & sleep 5`],
      cwd: dir,
      env,
      timeoutMs: 300,
      ...files(dir),
      launcher: through,
      onStart: (pid) => {
        group = pid;
      },
    });
    expect(timedOut.timedOut).toBe(true);
    expect(timedOut.signal).toBe('SIGTERM');
    // The background subshell that would touch the marker was in the group: once the group is gone, it never will.
    await groupGone(group);
    expect(existsSync(marker)).toBe(false);
    const controller = new AbortController();
    controller.abort();
    // Aborted before the pid is even known: stopped as soon as it is.
    const aborted = await runCommand({
      file: 'sleep',
      args: ['10'],
      cwd: dir,
      env,
      signal: controller.signal,
      ...files(dir),
      launcher: through,
    });
    expect(aborted.aborted).toBe(true);
    expect(aborted.signal).toBe('SIGTERM');
  });

  it('runs commands side by side, each with its own result', async () => {
    const dir = temp();
    const through = launcher();
    const results = await Promise.all(
      [3, 1, 2].map((n) =>
        runCommand({
          file: 'sh',
          args: ['-c', `sleep 0.${n}; echo ${n}; exit ${n}`],
          cwd: dir,
          env,
          stdoutFile: join(dir, `out${n}.log`),
          stderrFile: join(dir, `err${n}.log`),
          launcher: through,
        }),
      ),
    );
    expect(results.map((result) => [result.exitCode, result.stdout.head])).toEqual([
      [3, '3\n'],
      [1, '1\n'],
      [2, '2\n'],
    ]);
  });

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

  it('fails a command whose process file cannot be written, launched as started directly', async () => {
    const dir = temp();
    const through = launcher();
    for (const via of [through, undefined]) {
      const processFile = join(dir, 'no-such-dir', 'process.json');
      await expect(
        runCommand({ file: 'true', args: [], cwd: dir, env, ...files(dir), processFile, ...(via ? { launcher: via } : {}) }),
      ).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('writes the process file (pid and start time) before reporting the start, launched or not', async () => {
    const dir = temp();
    const through = launcher();
    for (const via of [through, undefined]) {
      const processFile = join(dir, `process-${via ? 'launched' : 'direct'}.json`);
      let seen: unknown;
      const result = await runCommand({
        file: 'sleep',
        args: ['0.2'],
        cwd: dir,
        env,
        ...files(dir),
        processFile,
        ...(via ? { launcher: via } : {}),
        onStart: (pid) => {
          seen = { pid, start_ticks: processStartTicks(pid) };
        },
      });
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(readFileSync(processFile, 'utf8'))).toEqual(seen);
      expect(readFileSync(processFile, 'utf8')).toMatch(/^\{"pid":\d+,"start_ticks":"\d+"\}\n$/);
    }
  });
});
