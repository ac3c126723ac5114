import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { temporaryWorkspace } from '../test/temp-workspace.js';
import { failure } from '../test/session-failure.js';
import { endSession, execInSession, listSessions, startSession } from './index.js';

let cwd: string;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ cwd, dispose } = await temporaryWorkspace());
});
afterEach(async () => {
  await dispose();
});

describe('bash sessions', () => {
  it('keeps the working directory and exported variables between execs', async () => {
    const session = await startSession({ cwd });
    expect(session).toEqual({ session_id: expect.stringMatching(/^sess_/), command: 'bash', work_dir: cwd, status: 'active' });
    await mkdir(join(cwd, 'sub dir'));
    const first = await execInSession(session.session_id, 'cd "sub dir" && export GREETING="hello world" PLAIN=1', { cwd });
    expect(first).toMatchObject({ stdout: '', stderr: '', exit_code: 0 });
    const second = await execInSession(session.session_id, 'pwd; echo "$GREETING/$PLAIN"', { cwd });
    expect(second.stdout).toBe(`${join(cwd, 'sub dir')}\nhello world/1\n`);
    expect(second.execution_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('keeps functions and aliases, and runs multi-line scripts as a heredoc would give them', async () => {
    const { session_id } = await startSession({ cwd });
    await execInSession(session_id, 'greet() {\n  echo "hi $1"\n}\nalias shout="echo LOUD"', { cwd });
    const result = await execInSession(session_id, 'for i in 1 2; do\n  greet "$i"\ndone\nshout', { cwd });
    expect(result.stdout).toBe('hi 1\nhi 2\nLOUD\n');
  });

  it('saves the state and keeps the exit code when the command calls exit N or fails under set -e', async () => {
    const { session_id } = await startSession({ cwd });
    const exited = await execInSession(session_id, 'export A=1; cd /; exit 7', { cwd });
    expect(exited.exit_code).toBe(7);
    const failed = await execInSession(session_id, 'set -e; export B=2; false; echo unreachable', { cwd });
    expect(failed).toMatchObject({ exit_code: 1, stdout: '' });
    const after = await execInSession(session_id, 'echo "$A$B $(pwd)"', { cwd });
    expect(after).toMatchObject({ stdout: '12 /\n', exit_code: 0 });
  });

  it('forgets an inherited variable the session unset, and never stores the inherited environment', async () => {
    const env = { ...process.env, INHERITED_ONE: 'from-the-caller' };
    const { session_id } = await startSession({ cwd, env });
    await execInSession(session_id, 'unset INHERITED_ONE; export MINE=yes', { cwd, env });
    const result = await execInSession(session_id, 'echo "[${INHERITED_ONE:-unset}] $MINE"', { cwd, env });
    expect(result.stdout).toBe('[unset] yes\n');
    const stored = await readFile(join(cwd, '.sessions', session_id, 'env.sh'), 'utf8');
    expect(stored).toContain("export MINE='yes'");
    expect(stored).toContain('unset INHERITED_ONE');
    expect(stored).not.toContain('PATH');
    expect(stored).not.toContain('HOME');
  });

  it('supports sh with the same state file layout', async () => {
    const { session_id } = await startSession({ cwd, command: ['sh'] });
    await execInSession(session_id, 'cd /tmp; export X=sh-value', { cwd });
    expect((await execInSession(session_id, 'echo "$PWD $X"', { cwd })).stdout).toBe('/tmp sh-value\n');
    expect((await execInSession(session_id, 'exit 4', { cwd })).exit_code).toBe(4);
  });

  it('times out, stops the command, reports partial output and stays usable', async () => {
    const { session_id } = await startSession({ cwd });
    const started = Date.now();
    const error = await failure(execInSession(session_id, 'echo before; export KEPT=1; sleep 30', { cwd, timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe('EXEC_TIMEOUT');
    expect(error.message).toContain('300 ms');
    expect(error.stdout).toBe('before\n');
    expect((await execInSession(session_id, 'echo "ok $KEPT"', { cwd })).stdout).toBe('ok 1\n');
  });

  it('caps 10 MB of output, keeping head and tail with a note of what was dropped', async () => {
    const { session_id } = await startSession({ cwd });
    const result = await execInSession(session_id, 'echo START; head -c 10000000 /dev/zero | tr "\\0" x; echo; echo END', {
      cwd,
      maxOutputBytes: 64 * 1024,
    });
    expect(result.exit_code).toBe(0);
    expect(result.stdout.startsWith('START\n')).toBe(true);
    expect(result.stdout.endsWith('\nEND\n')).toBe(true);
    expect(result.stdout).toMatch(/output truncated, \d+ of 10000011 bytes dropped/);
    expect(result.stdout.length).toBeLessThan(64 * 1024 + 300);
  });

  it('runs concurrent execs one at a time, each complete and never interleaved', async () => {
    const { session_id } = await startSession({ cwd });
    const script = (name: string) =>
      `echo "$(date +%s%N) start ${name}" >> log.txt; for i in $(seq 1 50); do echo "${name} $i"; done; sleep 0.05; echo "$(date +%s%N) end ${name}" >> log.txt`;
    const names = ['a', 'b', 'c', 'd', 'e'];
    const results = await Promise.all(names.map((name) => execInSession(session_id, script(name), { cwd })));
    results.forEach((result, index) => {
      const expected = Array.from({ length: 50 }, (_, line) => `${names[index]} ${line + 1}\n`).join('');
      expect(result.stdout).toBe(expected);
    });
    const log = (await readFile(join(cwd, 'log.txt'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(' ').slice(1).join(' '));
    for (let index = 0; index < log.length; index += 2) {
      expect(log[index + 1]).toBe(log[index]?.replace('start', 'end'));
    }
    expect(log).toHaveLength(10);
  });

  it('reports unknown, malformed and ended sessions and bad commands with stable codes', async () => {
    expect((await failure(execInSession('sess_000000000000', 'true', { cwd }))).code).toBe('SESSION_NOT_FOUND');
    expect((await failure(execInSession('../etc', 'true', { cwd }))).code).toBe('INVALID_SESSION_ID');
    expect((await failure(startSession({ cwd, command: ['no-such-shell-xyz'] }))).code).toBe('COMMAND_NOT_FOUND');
    expect((await failure(startSession({ cwd: join(cwd, 'missing') }))).code).toBe('INVALID_ARGUMENT');
    const { session_id } = await startSession({ cwd });
    expect(await endSession(session_id, { cwd })).toEqual({ status: 'terminated', session_id });
    expect((await failure(execInSession(session_id, 'true', { cwd }))).code).toBe('SESSION_ENDED');
    expect((await failure(endSession(session_id, { cwd }))).code).toBe('SESSION_ENDED');
    expect(await listSessions({ cwd })).toEqual([{ session_id, command: 'bash', status: 'terminated', created_at: expect.any(String) }]);
  });

  it('keeps sessions where DELTA_SESSIONS_DIR says', async () => {
    const env = { ...process.env, DELTA_SESSIONS_DIR: 'elsewhere' };
    const { session_id } = await startSession({ cwd, env });
    await readFile(join(cwd, 'elsewhere', session_id, 'metadata.json'), 'utf8');
    expect((await execInSession(session_id, 'echo here', { cwd, env })).stdout).toBe('here\n');
    expect(await listSessions({ cwd })).toEqual([]);
    await endSession(session_id, { cwd, env });
  });
});
