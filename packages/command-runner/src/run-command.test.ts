import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive, isProcessGroupAlive } from '@delta/process-identity';
import { formatCapturedOutput, runCommand } from './index.js';

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-runner-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('runCommand', () => {
  it('runs argv without a shell, feeds stdin, streams both outputs to files', async () => {
    const dir = temp();
    const result = await runCommand({
      file: 'sh',
      args: ['-c', 'cat; echo "[$1]"; echo err >&2; exit 3', '--', '$(touch pwned) ; x'],
      cwd: dir,
      env,
      stdin: 'from stdin\n',
      stdoutFile: join(dir, 'out.log'),
      stderrFile: join(dir, 'err.log'),
    });
    expect(result.exitCode).toBe(3);
    expect(result.stdout.head).toBe('from stdin\n[$(touch pwned) ; x]\n');
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('from stdin\n[$(touch pwned) ; x]\n');
    expect(readFileSync(join(dir, 'err.log'), 'utf8')).toBe('err\n');
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('passes only the given environment', async () => {
    process.env.DELTA_RUNNER_SECRET = 'leak';
    try {
      const result = await runCommand({ file: 'env', args: [], cwd: temp(), env: { ...env, ONLY: 'me' } });
      expect(result.stdout.head).toContain('ONLY=me');
      expect(result.stdout.head).not.toContain('leak');
    } finally {
      delete process.env.DELTA_RUNNER_SECRET;
    }
  });

  it('reports a command that does not exist, without throwing', async () => {
    const result = await runCommand({ file: 'no-such-command-xyz', args: [], cwd: temp(), env });
    expect(result.exitCode).toBeNull();
    expect(result.startError).toBe('command not found: no-such-command-xyz');
  });

  it('keeps head and tail of huge output in bounded memory, and all of it on disk', async () => {
    const dir = temp();
    const result = await runCommand({
      file: 'sh',
      args: ['-c', 'head -c 5000000 /dev/zero | tr "\\0" a; echo END'],
      cwd: dir,
      env,
      captureBytes: 1000,
      stdoutFile: join(dir, 'out.log'),
    });
    expect(result.stdout.totalBytes).toBe(5_000_004);
    expect(result.stdout.head).toHaveLength(1000);
    expect(result.stdout.tail.endsWith('aaaEND\n')).toBe(true);
    expect(result.stdout.tail).toHaveLength(1000);
    expect(result.stdout.omittedBytes).toBe(5_000_004 - 2000);
    expect(readFileSync(join(dir, 'out.log')).length).toBe(5_000_004);
    expect(formatCapturedOutput(result.stdout, 'out.log')).toContain(
      '[... 4998004 bytes omitted of 5000004; the full output is in out.log ...]',
    );
  });

  it('hands output files to the command: a background child does not hold the result, and is stopped once the command exits', async () => {
    const dir = temp();
    const go = join(dir, 'go');
    // The background child would write only once this test lets it, after runCommand has returned: had
    // runCommand waited for it, the test would never get there. It is killed when the command exits.
    const result = await runCommand({
      file: 'sh',
      args: [
        '-c',
        `echo first; (while [ ! -e ${go} ]; do sleep 0.01; done; echo late) & echo $! > ${join(dir, 'background.pid')}; echo last >&2`,
      ],
      cwd: dir,
      env,
      stdoutFile: join(dir, 'out.log'),
      stderrFile: join(dir, 'err.log'),
    });
    expect(result.stdout).toEqual({ head: 'first\n', tail: '', totalBytes: 6, omittedBytes: 0 });
    expect(result.stderr.head).toBe('last\n');
    const background = Number(readFileSync(join(dir, 'background.pid'), 'utf8'));
    await expect
      .poll(() => !isProcessAlive(background), { timeout: 30_000, interval: 10, message: 'the background child to be stopped' })
      .toBe(true);
    writeFileSync(go, '');
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('first\n');
  });

  it('survives a command that exits without reading a large stdin, and names one that cannot run', async () => {
    const dir = temp();
    const result = await runCommand({
      file: 'true',
      args: [],
      cwd: dir,
      env,
      stdin: 'x'.repeat(4_000_000),
      stdoutFile: join(dir, 'out.log'),
    });
    expect(result.exitCode).toBe(0);
    writeFileSync(join(dir, 'not-executable'), '#!/bin/sh\n');
    const refused = await runCommand({ file: join(dir, 'not-executable'), args: [], cwd: dir, env, stdoutFile: join(dir, 'out.log') });
    expect(refused.exitCode).toBeNull();
    expect(refused.startError).toBe(`permission denied: ${join(dir, 'not-executable')} is not executable`);
  });

  it('stops the whole process group on timeout', async () => {
    const dir = temp();
    const marker = join(dir, 'late');
    let group = 0;
    const result = await runCommand({
      file: 'sh',
      args: ['-c', `(sleep 2; touch ${marker}) & sleep 5`],
      cwd: dir,
      env,
      timeoutMs: 300,
      onStart: (pid) => {
        group = pid;
      },
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGTERM');
    // The subshell that would touch the marker is in the group: once the group is gone, it never will.
    await expect.poll(() => !isProcessGroupAlive(group), { timeout: 30_000, interval: 10, message: 'the process group to end' }).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('stops the process group when the signal aborts', async () => {
    const controller = new AbortController();
    const result = await runCommand({
      file: 'sleep',
      args: ['10'],
      cwd: temp(),
      env,
      signal: controller.signal,
      onStart: () => controller.abort(),
    });
    expect(result.aborted).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
  });

  it('returns when the command exits even if a background child kept stdout open, and stops that child', async () => {
    const dir = temp();
    const result = await runCommand({
      file: 'sh',
      args: ['-c', `echo hi; sleep 30 & echo $! > ${join(dir, 'background.pid')}`],
      cwd: dir,
      env,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.head).toBe('hi\n');
    // It did not wait 30 s for the background child, which was stopped with the command's process group.
    const background = Number(readFileSync(join(dir, 'background.pid'), 'utf8'));
    await expect
      .poll(() => !isProcessAlive(background), { timeout: 30_000, interval: 10, message: 'the background child to be stopped' })
      .toBe(true);
  });
});
