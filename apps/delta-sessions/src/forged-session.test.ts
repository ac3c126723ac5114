import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// Everything under .sessions/ is written by whatever runs in the workspace, a tool included: `cleanup`
// (run by an on_run_end hook, outside the sandbox) and `end` must kill only what they can prove they
// started and delete nothing outside the session's own directory. These tests forge session files
// the way a hostile tool would and run the built binary.
const bin = fileURLToPath(new URL('../bin/delta-sessions.js', import.meta.url));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

let cwd: string;
let outside: string;
let victim: ChildProcess;

function run(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
    child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
    child.on('error', reject);
    child.on('close', (status) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ status, stdout, stderr, json });
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !existsSync(`/proc/${pid}/stat`) || !/\) [ZX] /.test(readFileSafe(`/proc/${pid}/stat`));
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A metadata.json as a tool would forge it: an active interpreter session naming `pid`. */
function forgedMetadata(sessionId: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    schema_version: 1,
    session_id: sessionId,
    command: 'sleep 600',
    argv: ['sleep', '600'],
    kind: 'interpreter',
    created_at: new Date().toISOString(),
    last_executed_at: null,
    status: 'active',
    work_dir: cwd,
    execution_count: 0,
    ...fields,
  });
}

async function forge(sessionId: string, fields: Record<string, unknown>, sessionsDir = join(cwd, '.sessions')): Promise<void> {
  await mkdir(join(sessionsDir, sessionId), { recursive: true });
  await writeFile(join(sessionsDir, sessionId, 'metadata.json'), forgedMetadata(sessionId, fields));
}

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'delta-sessions-forged-'));
  outside = await mkdtemp(join(tmpdir(), 'delta-sessions-outside-'));
  await writeFile(join(outside, 'precious'), 'keep me\n');
  // A process of the user's, started outside any session, in its own process group (as a supervisor is).
  victim = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  await new Promise((resolve) => victim.once('spawn', resolve));
});

afterEach(async () => {
  if (victim.pid !== undefined && alive(victim.pid)) process.kill(victim.pid, 'SIGKILL');
  await rm(cwd, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('forged session files', () => {
  it('naming a process it did not start (real argv, or argv [""]) with a socket outside: cleanup kills and deletes nothing, and says why', async () => {
    const pid = victim.pid!;
    const precious = join(outside, 'precious');
    await forge('sess_realargv', { pid, interpreter_pid: pid, socket_path: precious });
    await forge('sess_emptyargv', { argv: [''], command: '', pid, interpreter_pid: pid, socket_path: precious });
    // Even a marker and the victim's true start time in the file prove nothing: the victim's environment lacks the marker.
    const startTicks = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[19];
    await forge('sess_withmarker', { pid, interpreter_pid: pid, marker: 'a'.repeat(32), start_ticks: startTicks, socket_path: precious });

    const cleaned = await run(['cleanup']);
    expect(alive(pid)).toBe(true);
    expect(await readFile(precious, 'utf8')).toBe('keep me\n');
    expect(cleaned.status, cleaned.stdout + cleaned.stderr).toBe(0);
    for (const id of ['sess_realargv', 'sess_emptyargv', 'sess_withmarker']) {
      const entry = cleaned.json.find((result: { session_id: string }) => result.session_id === id);
      expect(entry).toEqual({ status: 'left_alone', session_id: id, reason: expect.stringContaining(`pid ${pid}`) });
      expect(cleaned.stderr).toContain(id);
    }
    // `end` refuses too, with a code, and still kills and deletes nothing.
    const ended = await run(['end', 'sess_realargv']);
    expect(ended.json.error.code).toBe('SESSION_UNTRUSTED');
    expect(alive(pid)).toBe(true);
    expect(await readFile(precious, 'utf8')).toBe('keep me\n');
  });

  it('through a symlinked session directory or sessions directory: cleanup and end delete nothing outside', async () => {
    const pid = victim.pid!;
    // A session directory that is a link to a directory outside, holding files the tidy-up would remove.
    await forge('sess_target', { pid, interpreter_pid: pid, socket_path: join(outside, 'precious') }, outside);
    await writeFile(join(outside, 'sess_target', 'env.sh'), 'keep me too\n');
    await mkdir(join(cwd, '.sessions'));
    await symlink(join(outside, 'sess_target'), join(cwd, '.sessions', 'sess_linked'));

    const cleaned = await run(['cleanup']);
    expect(cleaned.status, cleaned.stdout + cleaned.stderr).toBe(0);
    expect(cleaned.json).toEqual([{ status: 'left_alone', session_id: 'sess_linked', reason: expect.stringContaining('symbolic link') }]);
    const ended = await run(['end', 'sess_linked']);
    expect(ended.json.error.code).toBe('SESSION_UNTRUSTED');

    // The whole .sessions a link to a directory outside.
    await rm(join(cwd, '.sessions'), { recursive: true });
    await symlink(outside, join(cwd, '.sessions'));
    const throughLink = await run(['cleanup']);
    expect(throughLink.json.error?.code, throughLink.stdout).toBe('SESSION_UNTRUSTED');
    expect((await run(['end', 'sess_target'])).json.error.code).toBe('SESSION_UNTRUSTED');

    expect(alive(pid)).toBe(true);
    expect(await readFile(join(outside, 'precious'), 'utf8')).toBe('keep me\n');
    expect(await readFile(join(outside, 'sess_target', 'env.sh'), 'utf8')).toBe('keep me too\n');
  });

  it('a real interpreter session is still ended by cleanup, its process stopped and its socket removed', async () => {
    const started = await run(['start', 'python3']);
    expect(started.status, started.stdout + started.stderr).toBe(0);
    const id = started.json.session_id as string;
    const metadata = JSON.parse(await readFile(join(cwd, '.sessions', id, 'metadata.json'), 'utf8'));
    expect(alive(metadata.pid)).toBe(true);
    const cleaned = await run(['cleanup']);
    expect(cleaned.json).toEqual([{ status: 'terminated', session_id: id }]);
    expect(alive(metadata.pid)).toBe(false);
    expect(alive(metadata.interpreter_pid)).toBe(false);
    expect(existsSync(metadata.socket_path)).toBe(false);
  });

  it("copied from another workspace (pid, start time and marker all true): cleanup leaves the other workspace's session alone", async () => {
    // What a sandboxed tool can do: read another workspace's .sessions/<id>/ and copy it into this one.
    const other = await mkdtemp(join(tmpdir(), 'delta-sessions-other-'));
    let supervisor: number | undefined;
    try {
      const started = spawnSync(process.execPath, [bin, 'start', 'python3'], { cwd: other, encoding: 'utf8' });
      expect(started.status, started.stdout + started.stderr).toBe(0);
      const id = JSON.parse(started.stdout).session_id as string;
      const metadata = JSON.parse(await readFile(join(other, '.sessions', id, 'metadata.json'), 'utf8'));
      supervisor = metadata.pid;
      await mkdir(join(cwd, '.sessions'));
      expect(spawnSync('cp', ['-r', join(other, '.sessions', id), join(cwd, '.sessions')]).status).toBe(0);

      const cleaned = await run(['cleanup']);
      expect(cleaned.status, cleaned.stdout + cleaned.stderr).toBe(0);
      expect(cleaned.json).toEqual([
        { status: 'left_alone', session_id: id, reason: expect.stringContaining('another session directory') },
      ]);
      expect((await run(['end', id])).json.error.code).toBe('SESSION_UNTRUSTED');
      expect(alive(metadata.pid)).toBe(true);
      expect(alive(metadata.interpreter_pid)).toBe(true);
      // The real one still works where it lives, and is still ended there.
      const exec = spawnSync(process.execPath, [bin, 'exec', id], { cwd: other, input: 'print(6 * 7)\n', encoding: 'utf8' });
      expect(exec.stdout).toContain('42');
      const own = spawnSync(process.execPath, [bin, 'cleanup'], { cwd: other, encoding: 'utf8' });
      expect(JSON.parse(own.stdout)).toEqual([{ status: 'terminated', session_id: id }]);
      expect(alive(metadata.pid)).toBe(false);
    } finally {
      // Whatever failed above, the other workspace's session process group goes.
      if (supervisor !== undefined && alive(supervisor)) process.kill(-supervisor, 'SIGKILL');
      await rm(other, { recursive: true, force: true });
    }
  });

  it('with a forged exec.lock (a live pid, a FIFO, a link to /dev/zero): cleanup still ends every session, promptly', async () => {
    for (const forgery of ['pid 1', 'fifo', 'devzero']) {
      await rm(join(cwd, '.sessions'), { recursive: true, force: true });
      const first = (await run(['start', 'sh'])).json.session_id as string;
      const second = (await run(['start', 'sh'])).json.session_id as string;
      const lock = join(cwd, '.sessions', first, 'exec.lock');
      if (forgery === 'pid 1') await writeFile(lock, JSON.stringify({ pid: 1, token: 'forged', acquired_at: '2026-01-01T00:00:00Z' }));
      else if (forgery === 'fifo') expect(spawnSync('mkfifo', [lock]).status).toBe(0);
      else await symlink('/dev/zero', lock);

      const startedAt = Date.now();
      const cleaned = await run(['cleanup']);
      expect(cleaned.status, `${forgery}: ${cleaned.stdout}${cleaned.stderr}`).toBe(0);
      expect(Date.now() - startedAt, forgery).toBeLessThan(5_000);
      expect(cleaned.json, forgery).toEqual([first, second].sort().map((id) => ({ status: 'terminated', session_id: id })));
    }
  }, 30_000);
});
