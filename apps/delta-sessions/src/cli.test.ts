import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// These tests run the built binary, as a tool would: `pnpm test` here runs tsup first.
const bin = fileURLToPath(new URL('../bin/delta-sessions.js', import.meta.url));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

let cwd: string;

function run(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
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
    child.stdin.end(options.input ?? '');
  });
}

async function start(...command: string[]): Promise<string> {
  const started = await run(['start', ...command]);
  expect(started.status, started.stdout + started.stderr).toBe(0);
  return started.json.session_id as string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSyncSafe(`/proc/${pid}/stat`).includes(') Z');
  } catch {
    return false;
  }
}

function readFileSyncSafe(path: string): string {
  const result = spawnSync('cat', [path], { encoding: 'utf8' });
  return result.stdout ?? '';
}

beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../dist/cli.js', import.meta.url)))) {
    throw new Error('dist/cli.js is missing: run `pnpm test` (tsup, then vitest) or `pnpm build` first.');
  }
});

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'delta-sessions-cli-'));
});

afterEach(async () => {
  const listed = await run(['list']);
  for (const session of (listed.json ?? []) as Array<{ session_id: string; status: string }>) {
    if (session.status !== 'terminated') await run(['end', session.session_id]);
  }
  await rm(cwd, { recursive: true, force: true });
});

describe('delta-sessions', () => {
  it('prints help and its version', async () => {
    const help = await run(['--help']);
    expect(help.status).toBe(0);
    const execHelp = await run(['exec', '--help']);
    for (const word of ['start', 'exec', 'end', 'cleanup', 'list', '--sessions-dir', '--timeout-ms', '--max-output-bytes']) {
      expect(help.stdout + execHelp.stdout).toContain(word);
    }
    expect((await run(['--version'])).stdout).toMatch(/delta-sessions\/\d+\.\d+\.\d+/);
  });

  it('start, exec (argument, pipe, heredoc), list and end print the JSON of spec 2.3.2', async () => {
    const started = await run(['start']);
    expect(started.json).toEqual({ session_id: expect.stringMatching(/^sess_/), command: 'bash', work_dir: cwd, status: 'active' });
    const id = started.json.session_id as string;

    const first = await run(['exec', id, 'mkdir -p work && cd work && export NAME=delta']);
    expect(first.status).toBe(0);
    expect(Object.keys(first.json).sort()).toEqual(['execution_time_ms', 'exit_code', 'stderr', 'stdout']);
    const piped = await run(['exec', id], { input: 'echo "$NAME in $(basename "$PWD")"' });
    expect(piped.json).toMatchObject({ stdout: 'delta in work\n', stderr: '', exit_code: 0 });
    const heredoc = await run(['exec', id], { input: 'for i in 1 2 3; do\n  echo "Number: $i"\ndone\nexit 5\n' });
    expect(heredoc.json).toMatchObject({ stdout: 'Number: 1\nNumber: 2\nNumber: 3\n', exit_code: 5 });
    expect(heredoc.status).toBe(0); // the command's exit code is in the JSON; the CLI itself succeeded

    expect((await run(['list'])).json).toEqual([{ session_id: id, command: 'bash', status: 'active', created_at: expect.any(String) }]);
    expect((await run(['end', id])).json).toEqual({ status: 'terminated', session_id: id });
    const after = await run(['exec', id, 'true']);
    expect(after.status).toBe(1);
    expect(after.json.error.code).toBe('SESSION_ENDED');
    // One word: what `end` answered is what `list` says afterwards.
    expect((await run(['list'])).json).toEqual([expect.objectContaining({ session_id: id, status: 'terminated' })]);
  });

  it('cleanup ends every session not yet terminated, a dead one included, and stops their processes', async () => {
    const shell = await start();
    const python = await start('python3');
    const dying = await start('python3');
    const done = await start();
    await run(['end', done]);
    const pids = await Promise.all(
      [python, dying].map(async (id) => JSON.parse(await readFile(join(cwd, '.sessions', id, 'metadata.json'), 'utf8')).pid as number),
    );
    expect(pids.every(alive)).toBe(true);
    // A session whose interpreter a run left dead: its supervisor's group is killed behind its back.
    process.kill(-pids[1]!, 'SIGKILL');
    while (alive(pids[1]!)) await new Promise((resolve) => setImmediate(resolve));
    expect((await run(['list'])).json.find((entry: { session_id: string }) => entry.session_id === dying).status).toBe('dead');

    const cleaned = await run(['cleanup']);
    expect(cleaned.status, cleaned.stderr).toBe(0);
    const byId = (a: { session_id: string }, b: { session_id: string }) => a.session_id.localeCompare(b.session_id);
    expect([...cleaned.json].sort(byId)).toEqual(
      [shell, python, dying].map((session_id) => ({ status: 'terminated', session_id })).sort(byId),
    );
    expect((await run(['list'])).json.map((entry: { status: string }) => entry.status)).toEqual(Array(4).fill('terminated'));
    expect(alive(pids[0]!)).toBe(false);
    // Nothing left: a second cleanup ends nothing and still succeeds.
    expect((await run(['cleanup'])).json).toEqual([]);
  });

  it('keeps a python3 session alive after `start` exits', async () => {
    const id = await start('python3');
    expect((await run(['exec', id, 'x = 41'])).json).toMatchObject({ stdout: '', exit_code: 0 });
    expect((await run(['exec', id, 'print(x + 1)'])).json).toMatchObject({ stdout: '42\n', exit_code: 0 });
    const defined = await run(['exec', id], { input: 'def add(a, b):\n    return a + b\n\nprint(add(x, 1))\n' });
    expect(defined.json.stdout).toBe('42\n');
  });

  it('answers errors as JSON with a stable code and a non-zero exit', async () => {
    const unknown = await run(['exec', 'sess_000000000000', 'true']);
    expect(unknown.status).toBe(1);
    expect(unknown.json).toEqual({ error: { code: 'SESSION_NOT_FOUND', message: expect.stringContaining('sess_000000000000') } });
    expect((await run(['end', 'not-an-id'])).json.error.code).toBe('INVALID_SESSION_ID');
    const badCommand = await run(['start', 'no-such-interpreter-xyz']);
    expect(badCommand).toMatchObject({ status: 1, json: { error: { code: 'COMMAND_NOT_FOUND' } } });
    const usage = await run(['frobnicate']);
    expect(usage).toMatchObject({ status: 2, json: { error: { code: 'INVALID_ARGUMENT' } } });
    const badOption = await run(['exec', 'sess_000000000000', 'true', '--timeout-ms', 'soon']);
    expect(badOption).toMatchObject({ status: 2, json: { error: { code: 'INVALID_ARGUMENT' } } });
  });

  it('into a pipe its reader has left: exit 0, nothing on stderr, and the exec still counts', async () => {
    const id = await start();
    // The reader closes its end before delta-sessions starts, so every write meets a closed pipe.
    const script = 'until [ -e "$OUT/gone" ]; do sleep 0.01; done; "$@" 2>"$OUT/stderr"; echo $? >"$OUT/status"';
    const intoClosedPipe = async (...args: string[]) => {
      const out = await mkdtemp(join(tmpdir(), 'delta-sessions-pipe-'));
      const shell = spawnSync('sh', ['-c', `{ ${script}; } | { exec 0<&-; : >"$OUT/gone"; }`, 'sh', process.execPath, bin, ...args], {
        cwd,
        env: { ...process.env, OUT: out },
        encoding: 'utf8',
      });
      const result = {
        shell: shell.stderr,
        stderr: await readFile(join(out, 'stderr'), 'utf8'),
        status: (await readFile(join(out, 'status'), 'utf8')).trim(),
      };
      await rm(out, { recursive: true, force: true });
      return result;
    };
    expect(await intoClosedPipe('exec', id, 'export KEPT=yes; seq 1 200000')).toEqual({ shell: '', stderr: '', status: '0' });
    expect(await intoClosedPipe('list')).toEqual({ shell: '', stderr: '', status: '0' });
    expect((await run(['exec', id, 'echo $KEPT'])).json).toMatchObject({ stdout: 'yes\n', exit_code: 0 });

    if (!existsSync('/dev/full')) {
      console.warn('SKIPPED: /dev/full does not exist on this system; the full-device output case is not tested');
      return;
    }
    const full = spawnSync('sh', ['-c', '"$@" >/dev/full', 'sh', process.execPath, bin, 'list'], { cwd, encoding: 'utf8' });
    expect(full.status).toBe(1);
    expect(full.stderr).toBe('delta-sessions: cannot write to stdout: ENOSPC: no space left on device, write\n');
  });

  it('times out with --timeout-ms, reporting what ran so far', async () => {
    const id = await start();
    const timedOut = await run(['exec', id, '--timeout-ms', '300', 'echo started; sleep 20']);
    expect(timedOut.status).toBe(1);
    expect(timedOut.json.error).toMatchObject({ code: 'EXEC_TIMEOUT', stdout: 'started\n' });
    const python = await start('python3');
    const interrupted = await run(['exec', python, '--timeout-ms', '300'], { input: 'import time\ntime.sleep(20)' });
    expect(interrupted.json.error.code).toBe('EXEC_TIMEOUT');
    expect((await run(['exec', python, '1 + 1'])).json.stdout).toBe('2\n');
  });

  it('reports a killed session process as dead in list and exec', async () => {
    const id = await start('python3');
    const metadata = JSON.parse(await readFile(join(cwd, '.sessions', id, 'metadata.json'), 'utf8'));
    process.kill(metadata.pid, 'SIGKILL');
    for (let tries = 0; tries < 100 && alive(metadata.pid); tries += 1) await sleep(20);
    expect((await run(['list'])).json).toEqual([{ session_id: id, command: 'python3', status: 'dead', created_at: expect.any(String) }]);
    const exec = await run(['exec', id, 'print(1)']);
    expect(exec).toMatchObject({ status: 1, json: { error: { code: 'SESSION_DEAD' } } });
    expect(exec.json.error.message).toMatch(/dead.*start a new one/);
  });

  it('serialises concurrent execs from separate processes; each output is whole', async () => {
    const bash = await start();
    const python = await start('python3');
    const names = ['a', 'b', 'c', 'd'];
    const [bashRuns, pythonRuns] = await Promise.all([
      Promise.all(names.map((name) => run(['exec', bash, `for i in $(seq 1 300); do echo "${name} $i"; done`]))),
      Promise.all(names.map((name) => run(['exec', python], { input: `for i in range(300):\n    print("${name}", i + 1)` }))),
    ]);
    for (const runs of [bashRuns, pythonRuns]) {
      runs.forEach((result, index) => {
        expect(result.json.stdout).toBe(Array.from({ length: 300 }, (_, line) => `${names[index]} ${line + 1}\n`).join(''));
      });
    }
  });

  it('caps 10 MB of output with a note, and its memory stays bounded however large the output', async () => {
    const id = await start();
    const capped = await run(['exec', id, 'head -c 10000000 /dev/zero | tr "\\0" a']);
    expect(capped.json.exit_code).toBe(0);
    expect(capped.json.stdout).toMatch(
      /\[delta-sessions: output truncated, 8951424 of 10000000 bytes dropped from the middle; the limit is 1048576 bytes per stream/,
    );
    expect(capped.json.stdout.length).toBeLessThan(1048576 + 300);

    // The peak memory of the CLI and everything under it, for 10 MB and for 200 MB of output.
    const peakKilobytes = (megabytes: number) => {
      const measure = [
        'import resource, subprocess, sys',
        `subprocess.run([sys.argv[1], sys.argv[2], "exec", sys.argv[3], "head -c ${megabytes}000000 /dev/zero | tr '\\\\0' a"], stdout=subprocess.DEVNULL, check=True)`,
        'print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)',
      ].join('\n');
      return Number(spawnSync('python3', ['-c', measure, process.execPath, bin, id], { cwd, encoding: 'utf8' }).stdout.trim());
    };
    const small = peakKilobytes(10);
    const large = peakKilobytes(200);
    expect(small).toBeGreaterThan(0);
    // Holding the output would add at least 190 MB; bounded capture adds only garbage-collector slack.
    expect(large - small).toBeLessThan(80 * 1024);
  });

  it('keeps sessions where --sessions-dir or DELTA_SESSIONS_DIR says', async () => {
    const byOption = await run(['--sessions-dir', 'state', 'start']);
    const id = byOption.json.session_id as string;
    expect(existsSync(join(cwd, 'state', id, 'metadata.json'))).toBe(true);
    expect((await run(['exec', '--sessions-dir', 'state', id, 'echo ok'])).json.stdout).toBe('ok\n');
    const env = { ...process.env, DELTA_SESSIONS_DIR: join(cwd, 'state') };
    expect((await run(['list'], { env })).json).toHaveLength(1);
    expect((await run(['end', id], { env })).json.status).toBe('terminated');
    expect(existsSync(join(cwd, '.sessions'))).toBe(false);
  });

  it('never writes the value of an API key from the environment under .sessions/', async () => {
    const key = `sk-live-${randomBytes(16).toString('hex')}`;
    const env = { ...process.env, OPENAI_API_KEY: key, DELTA_API_KEY: key };
    const bash = (await run(['start'], { env })).json.session_id as string;
    await run(['exec', bash, 'cd /tmp; export A=1 KEY_COPY="$OPENAI_API_KEY"; f() { :; }'], { env });
    expect((await run(['exec', bash, 'echo "$A ${#OPENAI_API_KEY}"'], { env })).json.stdout).toBe(`1 ${key.length}\n`);
    const python = (await run(['start', 'python3'], { env })).json.session_id as string;
    await run(['exec', python, 'import os; k = os.environ["OPENAI_API_KEY"]'], { env });

    const files = await readdir(join(cwd, '.sessions'), { recursive: true, withFileTypes: true });
    const contents = await Promise.all(
      files.filter((file) => file.isFile()).map((file) => readFile(join(file.parentPath, file.name), 'utf8')),
    );
    expect(contents.length).toBeGreaterThan(4);
    for (const content of contents) expect(content).not.toContain(key);
  });
});
