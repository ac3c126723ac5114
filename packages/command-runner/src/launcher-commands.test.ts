import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTicks } from '@delta/process-identity';
import { runCommand } from './index.js';
import { cleanUp, env, files, groupGone, launcher, parentOf, temp } from './launcher.test-support.js';

afterEach(cleanUp);

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
