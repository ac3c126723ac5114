// The sandbox's launcher program (bash) on its own, outside bubblewrap, spoken to by CommandLauncher as
// RunSandbox does: what a command gets (argv, environment, descriptors, process group) and how its end and
// its failures to start are reported. run-sandbox-calls.test.ts and run-sandbox-isolation.test.ts cover it inside the sandbox.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessGroupAlive } from '@delta/process-identity';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandLauncher, type LaunchOutcome } from '../launcher.js';
import { until } from './sandbox.test-support.js';
import {
  decodeShellReply,
  encodeShellLaunch,
  unexportableNames,
  SHELL_LAUNCHER_PROGRAM,
  shellLauncherCommand,
  shellWord,
} from './shell-launcher.js';

const strace = ['/usr/bin/strace', '/bin/strace'].find((path) => existsSync(path));
const dirs: string[] = [];
const launchers: CommandLauncher[] = [];
afterEach(async () => {
  for (const launcher of launchers.splice(0)) await launcher.kill();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-shell-launcher-'));
  dirs.push(dir);
  return dir;
}

/**
 * The launcher as RunSandbox starts it, but with no bubblewrap; `inherit`: a file it gets open on fd 50 without
 * close-on-exec; `more`: the test's own lines after its program (a redefined function, a process of its own).
 */
function start(inherit?: string, stageFile?: (text: string) => string, more?: string): CommandLauncher {
  const [bash, ...args] = shellLauncherCommand();
  const launcher = CommandLauncher.startCommand({
    ...(inherit
      ? { file: 'bash', args: ['-c', 'exec 50>>"$1"; shift; exec "$@"', 'bash', inherit, bash!, ...args] }
      : { file: bash!, args }),
    env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    protocol: 'shell',
    preamble: more === undefined ? SHELL_LAUNCHER_PROGRAM : `${SHELL_LAUNCHER_PROGRAM}\n${more}\n`,
    ...(stageFile ? { stageFile } : {}),
  });
  launchers.push(launcher);
  return launcher;
}

function run(
  launcher: CommandLauncher,
  dir: string,
  file: string,
  args: string[],
  more: { env?: Record<string, string>; stdinFile?: string; cwd?: string } = {},
) {
  return launcher.launch({
    file,
    args,
    cwd: more.cwd ?? dir,
    env: more.env ?? { PATH: '/usr/bin:/bin' },
    stdoutFile: join(dir, 'out.log'),
    stderrFile: join(dir, 'err.log'),
    ...(more.stdinFile ? { stdinFile: more.stdinFile } : {}),
  });
}

const tricky = [
  '',
  'plain',
  'two words',
  "it's",
  'back\\slash',
  'new\nline',
  'tab\there',
  '$HOME `id` $(id) *',
  "$'x'",
  'é😀',
  '\u0001\u001f\u007f',
  '-env',
];

describe('the shell launcher', () => {
  it('quotes every word so that bash reads it back as it was', () => {
    for (const text of tricky) {
      const result = spawnSync('bash', ['-c', `printf '%s' ${shellWord(text)}`], { encoding: 'utf8' });
      expect(result.stdout).toBe(text);
      expect(shellWord(text)).not.toContain('\n');
    }
    expect(() => shellWord('a\0b')).toThrow(/NUL byte/);
  });

  it('starts a command without a shell, with exactly its argv, environment, directory and stdin', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'in.txt'), 'from stdin\n');
    const launcher = start();
    const script = 'printf "%s|" "$@"; echo; pwd; cat';
    const launched = run(launcher, dir, 'bash', ['-c', script, 'bash', ...tricky], { stdinFile: join(dir, 'in.txt') });
    expect(await launched.started).toEqual(expect.any(Number));
    expect(await launched.ended).toEqual({ exitCode: 0, signal: null });
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe(`${tricky.join('|')}|\n${dir}\nfrom stdin\n`);
    const env = { PATH: '/usr/bin:/bin', A: 'one', B: 'x\ny' };
    expect(await run(launcher, dir, '/usr/bin/env', ['-0'], { env }).ended).toEqual({ exitCode: 0, signal: null });
    expect(readFileSync(join(dir, 'out.log'), 'utf8').split('\0').filter(Boolean).sort()).toEqual([
      'A=one',
      'B=x\ny',
      'PATH=/usr/bin:/bin',
    ]);
  });

  it('runs exactly the program it names, whatever its path holds, with exactly its environment but `_`', async () => {
    const dir = temp();
    const launcher = start();
    // An agent under `lr=0.1/`, and a program whose name starts with `-`: through `env -i` the first was
    // read as one more variable, and the model's first argument ran as the program.
    mkdirSync(join(dir, 'lr=0.1', 'bin'), { recursive: true });
    for (const name of ['tool=1.sh', '-tool']) {
      writeFileSync(join(dir, 'lr=0.1', 'bin', name), `#!/bin/sh\necho "${name} ran with $#: $1"\n`);
      chmodSync(join(dir, 'lr=0.1', 'bin', name), 0o755);
    }
    const env = { PATH: `${join(dir, 'lr=0.1', 'bin')}:/usr/bin:/bin`, PWD: '/given', SHLVL: '3', _: '/usr/bin/node' };
    const byPath = run(launcher, dir, join(dir, 'lr=0.1', 'bin', 'tool=1.sh'), ['/bin/touch', join(dir, 'pwned')], { env });
    expect(await byPath.ended).toEqual({ exitCode: 0, signal: null });
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe(`tool=1.sh ran with 2: /bin/touch\n`);
    expect(await run(launcher, dir, '-tool', ['x'], { env }).ended).toEqual({ exitCode: 0, signal: null });
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('-tool ran with 1: x\n');
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    // `_` is left out: the program that started the engine, meaningless to a tool.
    expect(await run(launcher, dir, '/usr/bin/env', [], { env }).ended).toEqual({ exitCode: 0, signal: null });
    expect(readFileSync(join(dir, 'out.log'), 'utf8').split('\n').filter(Boolean).sort()).toEqual(
      [`PATH=${env.PATH}`, 'PWD=/given', 'SHLVL=3'].sort(),
    );
  });

  // The watcher is a fork of the launcher's bash: given the command's LANG, it loaded that locale's files
  // for every call (docs/decisions/step-latency.md). strace shows who opens what.
  const traced = strace !== undefined && existsSync('/usr/lib/locale/C.utf8');
  if (!traced) console.warn('\n!!! SKIPPING the locale test of the shell launcher: it needs strace and the C.UTF-8 locale.\n');
  it.skipIf(!traced)("loads the command's locale in the command only, and gives it no LC_ALL of its own", async () => {
    const dir = temp();
    const trace = join(dir, 'trace.txt');
    const [bash, ...args] = shellLauncherCommand();
    const launcher = CommandLauncher.startCommand({
      file: strace!,
      args: ['-f', '-qq', '-e', 'trace=openat,execve', '-o', trace, bash!, ...args],
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      protocol: 'shell',
      preamble: SHELL_LAUNCHER_PROGRAM,
    });
    launchers.push(launcher);
    const env = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' };
    for (let call = 0; call < 2; call += 1) {
      expect(await run(launcher, dir, '/usr/bin/env', [], { env }).ended).toEqual({ exitCode: 0, signal: null });
      expect(readFileSync(join(dir, 'out.log'), 'utf8').split('\n').filter(Boolean).sort()).toEqual(['LANG=C.UTF-8', 'PATH=/usr/bin:/bin']);
    }
    await launcher.kill();
    const lines = readFileSync(trace, 'utf8').split('\n');
    const pidOf = (line: string) => line.split(' ')[0]!;
    const commands = new Set(lines.filter((line) => line.includes('execve("/usr/bin/env"')).map(pidOf));
    const locale = lines.filter((line) => /openat\(.*\/locale\//.test(line));
    expect(commands.size).toBe(2);
    // Each command loads it, as it would anywhere; nothing else does.
    for (const pid of commands) expect(locale.some((line) => pidOf(line) === pid)).toBe(true);
    expect(locale.filter((line) => !commands.has(pidOf(line)))).toEqual([]);
  });

  it('refuses, as the start error, an environment bash cannot pass on as given', async () => {
    const dir = temp();
    const launcher = start();
    expect(unexportableNames({ PATH: '/usr/bin', UID: '1', 'a.b': '2', BASH_ENV: '/x', '-i': '3' })).toEqual([
      'UID',
      'a.b',
      'BASH_ENV',
      '-i',
    ]);
    const refused = await run(launcher, dir, '/usr/bin/env', [], { env: { PATH: '/usr/bin:/bin', UID: '12345' } }).ended;
    expect(refused).toMatchObject({ error: { code: 'EINVAL', message: expect.stringContaining('"UID"') } });
    // The launcher goes on.
    expect(await run(launcher, dir, 'true', []).ended).toEqual({ exitCode: 0, signal: null });
  });

  it('reads an environment from a staged file, exactly, when given a way to stage one', async () => {
    const dir = temp();
    let staged = 0;
    const launcher = start(undefined, (text) => {
      staged += 1;
      const file = join(dir, `env-${staged}`);
      writeFileSync(file, text);
      return file;
    });
    const env = { PATH: '/usr/bin:/bin', B: 'x\ny z', C: "it's $HOME" };
    for (let call = 0; call < 2; call += 1) {
      expect(await run(launcher, dir, '/usr/bin/env', ['-0'], { env }).ended).toEqual({ exitCode: 0, signal: null });
      expect(readFileSync(join(dir, 'out.log'), 'utf8').split('\0').filter(Boolean).sort()).toEqual([
        'B=x\ny z',
        "C=it's $HOME",
        'PATH=/usr/bin:/bin',
      ]);
    }
    // Sent once for both calls.
    expect(staged).toBe(1);
    expect(await run(launcher, dir, 'true', [], { env: { PATH: '/bin', D: 'a\0b' } }).ended).toMatchObject({ error: { code: 'EINVAL' } });
  });

  it('passes no descriptor it inherited on to a command', async () => {
    const dir = temp();
    const launcher = start(join(dir, 'outside.log'));
    const launched = run(launcher, dir, 'bash', ['-c', 'ls /proc/self/fd; echo through-50 >&50']);
    expect(await launched.ended).toEqual({ exitCode: 1, signal: null });
    expect(readFileSync(join(dir, 'out.log'), 'utf8').split('\n').filter(Boolean)).toEqual(['0', '1', '2', '3']);
    expect(readFileSync(join(dir, 'err.log'), 'utf8')).toMatch(/Bad file descriptor/);
    expect(readFileSync(join(dir, 'outside.log'), 'utf8')).toBe('');
  });

  it('reports a command that cannot start as the node launcher does, and goes on', async () => {
    const dir = temp();
    const launcher = start();
    writeFileSync(join(dir, 'not-executable'), '#!/bin/sh\n');
    chmodSync(join(dir, 'not-executable'), 0o644);
    const cases: Array<[Promise<LaunchOutcome>, string]> = [
      [run(launcher, dir, 'no-such-command-xyz', []).ended, 'ENOENT'],
      [run(launcher, dir, join(dir, 'missing'), []).ended, 'ENOENT'],
      [run(launcher, dir, join(dir, 'not-executable'), []).ended, 'EACCES'],
      [run(launcher, dir, 'true', [], { cwd: join(dir, 'no-such-dir') }).ended, 'ENOENT'],
      [run(launcher, dir, 'true', [], { stdinFile: join(dir, 'no-such-input') }).ended, 'EIO'],
      [run(launcher, dir, 'echo', ['a\0b']).ended, 'EINVAL'],
    ];
    for (const [ended, code] of cases) expect(await ended).toMatchObject({ error: { code } });
    expect(await run(launcher, dir, 'echo', ['fine']).ended).toEqual({ exitCode: 0, signal: null });
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('fine\n');
  });

  it("tells an exit of 137 from this process's SIGKILL, and ends what a command left in its group", async () => {
    const dir = temp();
    const launcher = start();
    expect(await run(launcher, dir, 'sh', ['-c', 'exit 137']).ended).toEqual({ exitCode: 137, signal: null });
    const sleeping = run(launcher, dir, 'sh', ['-c', 'trap "" TERM; sleep 600']);
    const group = await sleeping.started;
    sleeping.kill('SIGKILL');
    expect(await sleeping.ended).toEqual({ exitCode: null, signal: 'SIGKILL' });
    const leaving = run(launcher, dir, 'sh', ['-c', 'sleep 600 & echo $! > left.pid']);
    const leftGroup = await leaving.started;
    expect(await leaving.ended).toEqual({ exitCode: 0, signal: null });
    // Killed, the group's last processes are gone once their new parent has collected them.
    await until(() => !isProcessGroupAlive(group!) && !isProcessGroupAlive(leftGroup!), 'the groups to end');
  });

  it('remembers no call once it has ended (bash kept each in its jobs, and each call took longer)', async () => {
    const dir = temp();
    const jobs = join(dir, 'jobs.txt');
    // Its own answer to `sync`, with what bash still keeps of the calls before it.
    const launcher = start(undefined, undefined, `sync() { jobs -p > ${shellWord(jobs)}; echo "S $1"; }`);
    for (let call = 0; call < 20; call += 1) expect(await run(launcher, dir, 'true', []).ended).toEqual({ exitCode: 0, signal: null });
    await launcher.ready();
    expect(readFileSync(jobs, 'utf8')).toBe('');
  });

  it('sends each environment once, and names it by number after', () => {
    const known = new Map<string, number>();
    const launch = { id: 1, cwd: '/w', stdinFile: '/dev/null', stdoutFile: '/o', stderrFile: '/e', file: 'echo', args: ['hi'] };
    const first = encodeShellLaunch({ ...launch, env: { PATH: '/bin', _: '/usr/bin/node' } }, known);
    expect(first).toBe("env 1 $'PATH=/bin'\nstart 1 $'/w' $'/dev/null' $'/o' $'/e' 1 $'echo' $'hi'\n");
    expect(encodeShellLaunch({ ...launch, id: 2, env: { PATH: '/bin' } }, known)).toBe(
      "start 2 $'/w' $'/dev/null' $'/o' $'/e' 1 $'echo' $'hi'\n",
    );
    expect(encodeShellLaunch({ ...launch, id: 3, env: { PATH: '/bin', A: '0' } }, known)).toMatch(
      /^env 2 \$'PATH=\/bin' \$'A=0'\nstart 3 /,
    );
  });

  it('is ended, never this process, when it writes what is not a reply', async () => {
    const dir = temp();
    // A launcher taken over (a tool in the sandbox can ptrace it) writes what it likes; here, once told to.
    const go = join(dir, 'go');
    const launcher = start(undefined, undefined, `(while [ ! -e ${shellWord(go)} ]; do sleep 0.05; done; echo 'not a reply') &`);
    const running = run(launcher, dir, 'sleep', ['600']);
    expect(await running.started).toEqual(expect.any(Number));
    writeFileSync(go, '');
    expect(await running.ended).toMatchObject({ error: { code: 'ELAUNCHER', message: expect.stringContaining('not a reply') } });
    expect(launcher.alive).toBe(false);
    expect(await run(launcher, dir, 'true', []).ended).toMatchObject({ error: { code: 'ELAUNCHER' } });
  });

  it('reads nothing but its own replies', () => {
    expect(decodeShellReply('P 3 41')).toEqual({ id: 3, pid: 41 });
    expect(decodeShellReply('E 3 0')).toEqual({ id: 3, status: 0 });
    expect(decodeShellReply('X 3 ENOENT')).toEqual({ id: 3, error: { code: 'ENOENT' } });
    expect(decodeShellReply('S 4')).toEqual({ id: 4, synced: true });
    expect(decodeShellReply('E 3 255')).toEqual({ id: 3, status: 255 });
    for (const line of ['', 'P 3', 'E 3 x', '{"id":1}', 'P 3 41 extra', 'X 3 enoent']) expect(decodeShellReply(line)).toBeUndefined();
    // What a tool writing on the launcher's output could forge: no status a shell reports, no Infinity.
    const huge = '9'.repeat(400);
    for (const line of ['E 3 256', `E 3 ${huge}`, `P 3 ${huge}`, `S ${huge}`, 'P 3 0', 'E 0 0'])
      expect(decodeShellReply(line)).toBeUndefined();
  });
});
