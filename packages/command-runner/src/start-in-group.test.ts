import type { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { isProcessGroupAlive } from '@delta/process-identity';
import { startInGroup, stopProcessGroup } from './index.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

function text(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let read = '';
    stream.on('data', (chunk: Buffer) => (read += chunk.toString('utf8')));
    stream.once('close', () => resolve(read));
  });
}

describe('startInGroup', () => {
  it('gives the command the descriptors asked for, and leaves what it started in the background to the caller', async () => {
    const { child, exited, signalGroup } = startInGroup('sh', ['-c', 'echo state >&3; sleep 30 >/dev/null 2>&1 3>&- & echo out'], {
      cwd: process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    const [out, state] = [text(child.stdio[1] as Readable), text(child.stdio[3] as Readable)];
    expect(await exited).toEqual({ code: 0, signal: null, timedOut: false, aborted: false });
    expect([await out, await state]).toEqual(['out\n', 'state\n']);
    // The background sleep is still in the command's group, until the caller stops it.
    expect(isProcessGroupAlive(child.pid!)).toBe(true);
    signalGroup('SIGKILL');
    await vi.waitFor(() => expect(isProcessGroupAlive(child.pid!)).toBe(false), { timeout: 30_000, interval: 10 });
  });

  it('stops the whole group on timeout: SIGTERM, then SIGKILL for what ignores it', async () => {
    const { child, exited } = startInGroup('sh', ['-c', "trap '' TERM; sleep 30 & wait"], {
      cwd: process.cwd(),
      env,
      stdio: 'ignore',
      timeoutMs: 200,
      killGraceMs: 200,
    });
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL', timedOut: true, aborted: false });
    await vi.waitFor(() => expect(isProcessGroupAlive(child.pid!)).toBe(false), { timeout: 30_000, interval: 10 });
  });

  it('reports a command that cannot start, and an abort', async () => {
    const missing = await startInGroup('/nonexistent/program', [], { cwd: process.cwd(), env, stdio: 'ignore' }).exited;
    expect(missing.error?.code).toBe('ENOENT');
    const controller = new AbortController();
    const { exited } = startInGroup('sleep', ['30'], { cwd: process.cwd(), env, stdio: 'ignore', signal: controller.signal });
    controller.abort();
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM', timedOut: false, aborted: true });
  });
});

describe('stopProcessGroup', () => {
  it('stops every member of a group: SIGTERM, and SIGKILL only when one outlives the grace', async () => {
    const { child, exited } = startInGroup('sh', ['-c', 'sleep 30 & sleep 30'], { cwd: process.cwd(), env, stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    expect(await stopProcessGroup(child.pid!, 1000)).toBe(true);
    await exited;
    await vi.waitFor(() => expect(isProcessGroupAlive(child.pid!)).toBe(false), { timeout: 30_000, interval: 10 });
  });
});
