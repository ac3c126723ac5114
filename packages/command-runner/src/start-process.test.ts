// startProcess on real processes: a long-lived one spoken to on stdin and stdout, its stderr in a file, and
// its whole process group stopped.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive, isProcessGroupAlive } from '@delta/process-identity';
import { startProcess, type StartedProcess } from './index.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const directories: string[] = [];

function createTempDir(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  directories.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** The first line the process writes on stdout. */
function firstLine(started: StartedProcess): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    started.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    });
  });
}

describe('startProcess', () => {
  it('starts a process in its own group, with stdin and stdout piped and stderr appended to a file; stop ends the group', async () => {
    const directory = createTempDir('start-process-');
    const stderrFile = join(directory, 'stderr.log');
    // A background child that would outlive its parent, whose pid the process prints, then echoes its input.
    const script = 'echo "to stderr" >&2; sleep 60 & echo "$!"; exec cat';
    const started = await startProcess({ file: 'sh', args: ['-c', script], cwd: directory, env, stderrFile });
    if ('startError' in started) throw new Error(started.startError);
    const background = Number(await firstLine(started));
    expect(isProcessAlive(background)).toBe(true);
    const echoed = new Promise<string>((resolve) => started.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
    started.stdin.write('hello\n');
    expect(await echoed).toBe('hello\n');

    expect(await started.stop()).toBe('SIGTERM');
    expect(await started.ended).toBe('SIGTERM');
    // The sleep it started in the background, in its group, went with it.
    expect(isProcessAlive(background)).toBe(false);
    expect(isProcessGroupAlive(started.pid)).toBe(false);
    expect(readFileSync(stderrFile, 'utf8')).toBe('to stderr\n');
  });

  it('kills a process that ignores SIGTERM after the grace period, and says how it ended', async () => {
    const directory = createTempDir('start-process-');
    const script = 'trap "" TERM; echo ready; while :; do sleep 1; done';
    const started = await startProcess({
      file: 'sh',
      args: ['-c', script],
      cwd: directory,
      env,
      stderrFile: join(directory, 'stderr.log'),
      killGraceMs: 200,
    });
    if ('startError' in started) throw new Error(started.startError);
    expect(await firstLine(started)).toBe('ready');
    expect(await started.stop()).toBe('SIGKILL');
  });

  it('gives the process its inherited data on file descriptor 3', async () => {
    const directory = createTempDir('start-process-');
    const started = await startProcess({
      file: 'sh',
      args: ['-c', 'cat <&3; echo'],
      cwd: directory,
      env,
      stderrFile: join(directory, 'stderr.log'),
      inheritData: [Buffer.from('from the pipe')],
    });
    if ('startError' in started) throw new Error(started.startError);
    expect(await firstLine(started)).toBe('from the pipe');
    expect(await started.ended).toBe('exit 0');
  });

  it('says why a process could not be started, without rejecting', async () => {
    const directory = createTempDir('start-process-');
    const stderrFile = join(directory, 'stderr.log');
    expect(await startProcess({ file: 'no-such-command-0x1', args: [], cwd: directory, env, stderrFile })).toEqual({
      startError: 'command not found: no-such-command-0x1',
    });
    expect(await startProcess({ file: 'sh', args: [], cwd: directory, env, stderrFile: join(directory, 'missing', 'x.log') })).toEqual({
      startError: expect.stringContaining(`no such file or directory, open '${join(directory, 'missing', 'x.log')}'`),
    });
  });
});
