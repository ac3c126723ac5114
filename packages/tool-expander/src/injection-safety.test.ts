// Injection safety with real processes: every hostile value of the corpus reaches the child exactly, as
// exactly one argv element, and nothing in it runs. The marker file must survive every attempt unchanged.
// One process per value, through a tiny sh argv echo, so that the whole corpus runs in seconds.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOSTILE_VALUES, label } from '../test/hostile-values.js';
import { ECHO_ARGV, ECHO_ARGV_SH, parseEchoArgv, removeWorkspaces, runInvocation, workspaceWithMarker } from '../test/run-invocation.js';
import { buildInvocation, expandTool } from './index.js';

afterAll(() => removeWorkspaces()); // not afterEach: the concurrent tests share the list

const CORPUS = HOSTILE_VALUES.map((value) => [label(value), value] as const);

/** An agent directory whose path is itself hostile: engine variables must not become code either. */
function hostileAgentHome(dir: string): string {
  const home = join(dir, 'agent home \'q\' "d" $(touch pwned) `touch pwned2`');
  mkdirSync(home);
  copyFileSync(ECHO_ARGV_SH, join(home, 'echo-argv.sh'));
  return home;
}

/** Nothing ran: the marker is there with its content, and nothing else was created beside it. */
function expectUntouched(dir: string, marker: string): void {
  expect(existsSync(marker)).toBe(true);
  expect(readFileSync(marker, 'utf8')).toBe('still here\n');
  expect(readdirSync(dir).sort()).toEqual([readdirSync(dir).find((name) => name.startsWith('agent home')), 'marker'].sort());
}

describe('the corpus', () => {
  it('holds at least 50 distinct hostile values, long ones included', () => {
    expect(HOSTILE_VALUES.length).toBeGreaterThanOrEqual(50);
    expect(new Set(HOSTILE_VALUES).size).toBe(HOSTILE_VALUES.length);
    expect(Math.max(...HOSTILE_VALUES.map((value) => value.length))).toBeGreaterThanOrEqual(50_000);
    for (const needle of ['"', "'", ';', '|', '&&', '$(', '`', '\n', '${', '*', '?']) {
      expect(HOSTILE_VALUES.some((value) => value.includes(needle))).toBe(true);
    }
    expect(HOSTILE_VALUES.some((value) => value.startsWith('-'))).toBe(true);
  });
});

describe.concurrent('exec: mode with hostile values', () => {
  it.each(CORPUS)('passes %s as exactly one argument, in place, and on stdin', async (_, value) => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({
      name: 'probe',
      exec: 'sh ${AGENT_HOME}/echo-argv.sh [%s] ${value} --name=${value} "quoted ${value}" END',
      stdin: 'content',
    });
    const invocation = buildInvocation(tool, { value, content: value }, { AGENT_HOME: home, CWD: dir });
    expect(invocation.file).toBe('sh');
    const outcome = await runInvocation(invocation, dir);
    expect(outcome.exitCode).toBe(0);
    expect(parseEchoArgv(outcome.stdout)).toEqual({ argv: ['[%s]', value, `--name=${value}`, `quoted ${value}`, 'END'], rest: value });
    expectUntouched(dir, marker);
  });
});

describe.concurrent('shell: mode (not raw) with hostile values', () => {
  it.each(CORPUS)('passes %s literally in plain, double-quoted and substituted positions', async (_, value) => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({
      name: 'probe',
      shell: 'sh ${AGENT_HOME}/echo-argv.sh ${value} "in double: ${value}" ${CWD} "$(printf %s ${value})" | cat\necho; echo after',
      stdin: 'content',
    });
    const invocation = buildInvocation(tool, { value, content: value }, { AGENT_HOME: home, CWD: dir });
    expect(invocation.file).toBe('sh');
    const outcome = await runInvocation(invocation, dir);
    expect(outcome.exitCode).toBe(0);
    // $(...) strips trailing newlines, as command substitution always does.
    expect(parseEchoArgv(outcome.stdout)).toEqual({
      argv: [value, `in double: ${value}`, dir, value.replace(/\n+$/, '')],
      rest: `${value}\nafter\n`,
    });
    expectUntouched(dir, marker);
  });
});

describe.concurrent('inject_as: option with hostile values', () => {
  it.each(CORPUS)('passes %s as exactly one argument after its flag', async (_, value) => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({
      name: 'probe',
      command: ['sh', '${AGENT_HOME}/echo-argv.sh', 'fixed'],
      parameters: [
        { name: 'flag', inject_as: 'option', option_name: '--flag' },
        { name: 'level', inject_as: 'option', option_name: '-l' },
        { name: 'last', inject_as: 'argument' },
      ],
    });
    const invocation = buildInvocation(tool, { flag: value, level: value, last: 'END' }, { AGENT_HOME: home, CWD: dir });
    const outcome = await runInvocation(invocation, dir);
    expect(outcome.exitCode).toBe(0);
    expect(parseEchoArgv(outcome.stdout)).toEqual({ argv: ['fixed', '--flag', value, '-l', value, 'END'], rest: '' });
    expectUntouched(dir, marker);
  });
});

describe.concurrent('command: mode arguments with hostile values', () => {
  it.each(CORPUS)('appends %s as exactly one argument', async (_, value) => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({
      name: 'probe',
      command: ['sh', '${AGENT_HOME}/echo-argv.sh', 'fixed'],
      parameters: [{ name: 'value' }],
      stdin: 'content',
    });
    const outcome = await runInvocation(buildInvocation(tool, { value, content: value }, { AGENT_HOME: home, CWD: dir }), dir);
    expect(parseEchoArgv(outcome.stdout)).toEqual({ argv: ['fixed', value], rest: value });
    expectUntouched(dir, marker);
  });
});

describe('a program that is not a shell script sees the same argv', () => {
  it('node receives every value of the corpus unchanged, one argument each', async () => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    copyFileSync(ECHO_ARGV, join(home, 'echo-argv.mjs'));
    const short = HOSTILE_VALUES.filter((value) => value.length < 1_000);
    const names = short.map((_, index) => `v${index}`);
    const tool = expandTool({ name: 'probe', exec: `node \${AGENT_HOME}/echo-argv.mjs ${names.map((name) => `\${${name}}`).join(' ')}` });
    const args = Object.fromEntries(names.map((name, index) => [name, short[index]]));
    const outcome = await runInvocation(buildInvocation(tool, args, { AGENT_HOME: home, CWD: dir }), dir);
    expect((JSON.parse(outcome.stdout) as { argv: string[] }).argv).toEqual(short);
    expectUntouched(dir, marker);
  });
});

describe(':raw is the documented escape hatch: its value IS interpreted by the shell', () => {
  it('splits a raw value into words and expands globs, where a quoted value stays whole', async () => {
    const { dir } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({ name: 'probe', shell: 'sh ${AGENT_HOME}/echo-argv.sh ${flags:raw} ${pattern:raw} -- ${safe}' });
    const outcome = await runInvocation(
      buildInvocation(tool, { flags: '-a  -b', pattern: 'mark*', safe: 'mark* -c' }, { AGENT_HOME: home, CWD: dir }),
      dir,
    );
    expect(parseEchoArgv(outcome.stdout).argv).toEqual(['-a', '-b', 'marker', '--', 'mark* -c']);
  });

  it('lets a raw value run code when the template itself evaluates it', async () => {
    const { dir, marker } = workspaceWithMarker();
    const tool = expandTool({ name: 'unsafe', shell: 'eval ${script:raw}' });
    await runInvocation(buildInvocation(tool, { script: 'rm -f marker' }, { AGENT_HOME: dir, CWD: dir }), dir);
    expect(existsSync(marker)).toBe(false);
  });
});

describe.concurrent('commandLine', () => {
  it.each(CORPUS)('runs the same argv when %s is pasted into sh', async (_, value) => {
    const { dir, marker } = workspaceWithMarker();
    const tool = expandTool({ name: 'probe', exec: `sh ${ECHO_ARGV_SH.replace(/ /g, '\\ ')} \${value} END` });
    const invocation = buildInvocation(tool, { value }, { AGENT_HOME: dir, CWD: dir });
    const outcome = await runInvocation({ file: 'sh', args: ['-c', invocation.commandLine], commandLine: '' }, dir);
    expect(parseEchoArgv(outcome.stdout).argv).toEqual([value, 'END']);
    expect(readFileSync(marker, 'utf8')).toBe('still here\n');
    expect(readdirSync(dir)).toEqual(['marker']);
  });
});
