// The launcher's program on its own: `node launcher-process.js`, spoken to line by line as CommandLauncher does.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isProcessAlive, readProcessFile } from '@delta/process-identity';
import { afterEach, describe, expect, it } from 'vitest';
import { launcherProgramPath } from './launcher.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-launcher-process-'));
  dirs.push(dir);
  return dir;
}

type Reply = Record<string, unknown> & { id: number };

/** The launcher program as a real process: send it messages, take its replies in order. */
function startProgram(options: { args?: string[]; inherit?: string } = {}) {
  const argv = [launcherProgramPath(), ...(options.args ?? [])];
  // `inherit`: a file open on descriptor 50 without close-on-exec, as a CI runner leaves them.
  const child = options.inherit
    ? spawn('bash', ['-c', 'exec 50>>"$1"; shift; exec "$@"', 'bash', options.inherit, process.execPath, ...argv], {
        env: {},
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, argv, { env: {}, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const replies: Reply[] = [];
  const waiting: Array<(reply: Reply) => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const reply = JSON.parse(line) as Reply;
    const next = waiting.shift();
    if (next) next(reply);
    else replies.push(reply);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    send(message: object) {
      child.stdin!.write(`${JSON.stringify(message)}\n`);
    },
    next(): Promise<Reply> {
      const ready = replies.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('launcher-process.js', () => {
  it('starts a command in its own group with only the given environment, writes its process file, reports pid then exit', async () => {
    const dir = temp();
    const program = startProgram();
    const processFile = join(dir, 'process.json');
    program.send({
      id: 1,
      file: 'sh',
      args: ['-c', 'read line; echo "got $line, group $(cut -d " " -f 5 /proc/$$/stat)"; env; exit 4'],
      cwd: dir,
      env: { ...env, ONLY: 'me' },
      stdin: 'hello\n',
      stdoutFile: join(dir, 'out.log'),
      stderrFile: join(dir, 'err.log'),
      processFile,
    });
    const started = await program.next();
    expect(started).toEqual({ id: 1, pid: expect.any(Number) });
    const pid = started.pid as number;
    expect(await program.next()).toEqual({ id: 1, exit: 4, signal: null });
    const out = readFileSync(join(dir, 'out.log'), 'utf8');
    expect(out.startsWith(`got hello, group ${pid}\n`)).toBe(true);
    expect(out).toContain('ONLY=me');
    expect(readProcessFile(processFile)).toEqual({ pid, start_ticks: expect.stringMatching(/^\d+$/) });
    // Its parent is the launcher, which ps shows as delta-launcher.
    expect(readFileSync(`/proc/${program.child.pid}/comm`, 'utf8').trim()).toBe('delta-launcher');
    program.child.stdin!.end();
    expect(await program.exited).toBe(0);
  });

  it('passes no descriptor it inherited on to a command', async () => {
    const dir = temp();
    const program = startProgram({ inherit: join(dir, 'outside.log') });
    program.send({
      id: 1,
      file: 'bash',
      args: ['-c', 'ls /proc/self/fd; echo through-50 >&50'],
      cwd: dir,
      env,
      stdoutFile: join(dir, 'out.log'),
      stderrFile: join(dir, 'err.log'),
    });
    expect(await program.next()).toMatchObject({ id: 1, pid: expect.any(Number) });
    expect(await program.next()).toEqual({ id: 1, exit: 1, signal: null });
    // Its standard three, and the one ls opened to list them.
    expect(readFileSync(join(dir, 'out.log'), 'utf8').split('\n').filter(Boolean)).toEqual(['0', '1', '2', '3']);
    expect(readFileSync(join(dir, 'err.log'), 'utf8')).toMatch(/Bad file descriptor/);
    expect(readFileSync(join(dir, 'outside.log'), 'utf8')).toBe('');
  });

  it('reports a command that cannot start, and goes on', async () => {
    const dir = temp();
    const program = startProgram();
    const outputs = { stdoutFile: join(dir, 'out.log'), stderrFile: join(dir, 'err.log') };
    program.send({ id: 1, file: 'no-such-command-xyz', args: [], cwd: dir, env, ...outputs });
    expect(await program.next()).toMatchObject({ id: 1, error: { code: 'ENOENT' } });
    program.send({ id: 2, file: 'true', args: [], cwd: join(dir, 'missing'), env, ...outputs });
    expect(await program.next()).toMatchObject({ id: 2, error: { code: 'ENOENT' } });
    program.send({ id: 3, file: 'true', args: [], cwd: dir, env, stdoutFile: join(dir, 'no', 'out.log'), stderrFile: outputs.stderrFile });
    expect(await program.next()).toMatchObject({ id: 3, error: { code: 'ENOENT', message: expect.stringContaining('out.log') } });
    program.send({ id: 4, file: 'echo', args: ['fine'], cwd: dir, env, ...outputs });
    expect(await program.next()).toMatchObject({ id: 4, pid: expect.any(Number) });
    expect(await program.next()).toEqual({ id: 4, exit: 0, signal: null });
    expect(readFileSync(outputs.stdoutFile, 'utf8')).toBe('fine\n');
  });

  it('answers a sync after what was sent before it, and reports a process file it cannot write', async () => {
    const dir = temp();
    const program = startProgram();
    const outputs = { stdoutFile: join(dir, 'out.log'), stderrFile: join(dir, 'err.log') };
    program.send({ id: 1, file: 'true', args: [], cwd: dir, env, ...outputs, processFile: join(dir, 'missing', 'process.json') });
    program.send({ id: 2, sync: true });
    expect(await program.next()).toMatchObject({
      id: 1,
      writeError: expect.stringContaining('ENOENT'),
      file: join(dir, 'missing', 'process.json'),
    });
    expect(await program.next()).toMatchObject({ id: 1, pid: expect.any(Number) });
    expect(await program.next()).toEqual({ id: 2, synced: true });
    expect(await program.next()).toEqual({ id: 1, exit: 0, signal: null });
  });

  it('exits once its input ends and the last command has ended, not before', async () => {
    const dir = temp();
    const program = startProgram();
    const go = join(dir, 'go');
    program.send({
      id: 1,
      file: 'sh',
      args: ['-c', `while [ ! -e ${go} ]; do sleep 0.01; done; echo done`],
      cwd: dir,
      env,
      stdoutFile: join(dir, 'out.log'),
      stderrFile: join(dir, 'err.log'),
    });
    const { pid } = await program.next();
    program.child.stdin!.end();
    // Input has ended, a command still runs: the launcher waits for it.
    expect(isProcessAlive(program.child.pid!)).toBe(true);
    expect(isProcessAlive(pid as number)).toBe(true);
    writeFileSync(go, '');
    expect(await program.next()).toEqual({ id: 1, exit: 0, signal: null });
    expect(await program.exited).toBe(0);
    expect(program.stderr()).toBe('');
  });

  it('does not end on the terminal signals a process group may get', async () => {
    const program = startProgram();
    program.send({ id: 1, sync: true });
    expect(await program.next()).toEqual({ id: 1, synced: true });
    // It catches SIGHUP, SIGINT and SIGQUIT (signals 1-3: the low bits of SigCgt in /proc/<pid>/status).
    const caught = /^SigCgt:\s+([0-9a-f]+)$/m.exec(readFileSync(`/proc/${program.child.pid}/status`, 'utf8'))![1]!;
    expect(Number.parseInt(caught.slice(-1), 16) & 0b111).toBe(0b111);
    for (const signal of ['SIGINT', 'SIGHUP', 'SIGQUIT'] as const) program.child.kill(signal);
    program.send({ id: 2, sync: true });
    expect(await program.next()).toEqual({ id: 2, synced: true });
    program.child.stdin!.end();
    expect(await program.exited).toBe(0);
  });
});
