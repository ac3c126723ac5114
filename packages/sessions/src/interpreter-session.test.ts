import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionMetadataPath, temporaryWorkspace } from '../test/temp-workspace.js';
import { failure } from '../test/session-failure.js';
import { endSession, execInSession, listSessions, startSession } from './index.js';
import type { SessionMetadata } from './types.js';
import { isProcessAlive } from '@delta/process-identity';

let cwd: string;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ cwd, dispose } = await temporaryWorkspace());
});
afterEach(async () => {
  await dispose();
});

async function metadataOf(sessionId: string): Promise<SessionMetadata> {
  return JSON.parse(await readFile(sessionMetadataPath(cwd, sessionId), 'utf8')) as SessionMetadata;
}

/** Running and not a zombie (this machine's init may be slow to reap orphans). */
function alive(pid: number): boolean {
  return isProcessAlive(pid);
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 100 && !condition(); tries += 1) await sleep(20);
}

describe('python3 sessions', () => {
  it('keeps variables, functions and imports in a process that outlives each exec', async () => {
    const session = await startSession({ cwd, command: ['python3'] });
    expect(session).toMatchObject({ command: 'python3', status: 'active', work_dir: cwd });
    expect(await execInSession(session.session_id, 'x = 41', { cwd })).toMatchObject({ stdout: '', stderr: '', exit_code: 0 });
    expect((await execInSession(session.session_id, 'print(x + 1)', { cwd })).stdout).toBe('42\n');
    await execInSession(session.session_id, 'import os\ndef double(n):\n    return n * 2\n', { cwd });
    const result = await execInSession(session.session_id, 'import sys\nprint("to stderr", file=sys.stderr)\ndouble(x)', { cwd });
    expect(result).toMatchObject({ stdout: '82\n', stderr: 'to stderr\n', exit_code: 0 });
    expect((await execInSession(session.session_id, 'os.getcwd()', { cwd })).stdout).toBe(`'${cwd}'\n`);
  });

  it('turns exceptions, syntax errors and sys.exit into an exit code and keeps going', async () => {
    const { session_id } = await startSession({ cwd, command: ['python3'] });
    const raised = await execInSession(session_id, 'print("partial")\n1 / 0', { cwd });
    expect(raised).toMatchObject({ stdout: 'partial\n', exit_code: 1 });
    expect(raised.stderr).toContain('ZeroDivisionError: division by zero');
    expect(raised.stderr).not.toContain('_delta_main');
    expect((await execInSession(session_id, 'def broken(:', { cwd })).stderr).toContain('SyntaxError');
    expect((await execInSession(session_id, 'import sys; sys.exit(3)', { cwd })).exit_code).toBe(3);
    expect((await execInSession(session_id, 'print("still here")', { cwd })).stdout).toBe('still here\n');
  });

  it('interrupts code that runs past the timeout and stays usable', async () => {
    const { session_id } = await startSession({ cwd, command: ['python3'] });
    await execInSession(session_id, 'kept = "yes"', { cwd });
    const error = await failure(execInSession(session_id, 'print("working", flush=True)\nwhile True:\n    pass', { cwd, timeoutMs: 300 }));
    expect(error.code).toBe('EXEC_TIMEOUT');
    expect(error.message).toContain('still usable');
    expect(error.stdout).toBe('working\n');
    // The user's own frames and the interrupt, never the driver's handler.
    expect(error.stderr).toMatch(
      /^Traceback \(most recent call last\):\n {2}File "<session>", line [23], in <module>\nKeyboardInterrupt\n$/,
    );
    expect((await execInSession(session_id, 'kept', { cwd })).stdout).toBe("'yes'\n");
  });

  it('reports a killed supervisor as dead, in list and in exec', async () => {
    const { session_id } = await startSession({ cwd, command: ['python3'] });
    const { pid, interpreter_pid } = await metadataOf(session_id);
    process.kill(pid!, 'SIGKILL');
    await waitUntil(() => !alive(pid!) && !alive(interpreter_pid!));
    expect(alive(interpreter_pid!)).toBe(false); // the interpreter saw its stdin close and left
    expect(await listSessions({ cwd })).toEqual([{ session_id, command: 'python3', status: 'dead', created_at: expect.any(String) }]);
    const error = await failure(execInSession(session_id, 'print(1)', { cwd }));
    expect(error.code).toBe('SESSION_DEAD');
    expect(error.message).toContain('start a new one');
    expect(await endSession(session_id, { cwd })).toEqual({ status: 'terminated', session_id });
  });

  it('reports a killed interpreter as dead', async () => {
    const { session_id } = await startSession({ cwd, command: ['python3'] });
    const { pid, interpreter_pid } = await metadataOf(session_id);
    process.kill(interpreter_pid!, 'SIGKILL');
    await waitUntil(() => !alive(pid!));
    expect((await listSessions({ cwd }))[0]?.status).toBe('dead');
    expect((await failure(execInSession(session_id, 'print(1)', { cwd }))).code).toBe('SESSION_DEAD');
  });

  it('end stops the supervisor, the interpreter and what the interpreter started', async () => {
    const { session_id } = await startSession({ cwd, command: ['python3'] });
    const child = await execInSession(session_id, 'import subprocess\np = subprocess.Popen(["sleep", "30"])\nprint(p.pid)', { cwd });
    const sleeper = Number(child.stdout.trim());
    const { pid, interpreter_pid } = await metadataOf(session_id);
    expect(alive(sleeper)).toBe(true);
    await endSession(session_id, { cwd });
    await waitUntil(() => ![pid!, interpreter_pid!, sleeper].some(alive));
    expect([pid!, interpreter_pid!, sleeper].filter(alive)).toEqual([]);
    expect((await failure(execInSession(session_id, 'x', { cwd }))).code).toBe('SESSION_ENDED');
  });

  it('caps 10 MB of output inside the session process', async () => {
    const { session_id } = await startSession({ cwd, command: ['python3'] });
    const result = await execInSession(session_id, 'import sys\nfor _ in range(10):\n    sys.stdout.write("y" * 1000000)\nprint("END")', {
      cwd,
      maxOutputBytes: 32 * 1024,
    });
    expect(result.stdout).toMatch(/output truncated, \d+ of 10000004 bytes dropped/);
    expect(result.stdout.endsWith('END\n')).toBe(true);
    expect(result.stdout.length).toBeLessThan(32 * 1024 + 300);
    expect((await execInSession(session_id, 'print("next")', { cwd })).stdout).toBe('next\n');
  });

  it('serialises concurrent execs; each answer holds exactly its own output', async () => {
    const { session_id } = await startSession({ cwd, command: ['python3'] });
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const code = (name: string) => `import time\nfor i in range(200):\n    print("${name}", i)\n    if i % 50 == 0: time.sleep(0.005)`;
    const results = await Promise.all(names.map((name) => execInSession(session_id, code(name), { cwd })));
    results.forEach((result, index) => {
      expect(result.stdout).toBe(Array.from({ length: 200 }, (_, line) => `${names[index]} ${line}\n`).join(''));
    });
    expect((await metadataOf(session_id)).execution_count).toBe(names.length);
  });
});

describe('node sessions', () => {
  it('keeps top-level declarations and awaits a returned promise', async () => {
    const { session_id } = await startSession({ cwd, command: ['node'] });
    await execInSession(session_id, 'let count = 41; function next() { return count + 1; }', { cwd });
    expect((await execInSession(session_id, 'console.log(next())', { cwd })).stdout).toBe('42\n');
    expect((await execInSession(session_id, 'Promise.resolve(count * 2)', { cwd })).stdout).toBe('82\n');
    const thrown = await execInSession(session_id, 'throw new Error("nope")', { cwd });
    expect(thrown.exit_code).toBe(1);
    expect(thrown.stderr).toContain('Error: nope');
    const error = await failure(execInSession(session_id, 'while (true) {}', { cwd, timeoutMs: 300 }));
    expect(error.code).toBe('EXEC_TIMEOUT');
    expect((await execInSession(session_id, 'count', { cwd })).stdout).toBe('41\n');
  });
});

describe('other interpreters', () => {
  it('drives any other REPL that reads stdin (here `env sh`, a long-lived sh) with echo markers', async () => {
    const { session_id } = await startSession({ cwd, command: ['env', 'sh'] });
    await execInSession(session_id, 'cd /tmp; NOT_EXPORTED=kept', { cwd });
    expect(await execInSession(session_id, 'echo "$PWD $NOT_EXPORTED"; false', { cwd })).toMatchObject({
      stdout: '/tmp kept\n',
      exit_code: 1,
    });
  });

  it('refuses an interpreter that exits at once', async () => {
    const error = await failure(startSession({ cwd, command: ['false'] }));
    expect(error.code).toBe('START_FAILED');
    expect(await listSessions({ cwd })).toEqual([]);
  });
});
