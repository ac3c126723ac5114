// Injection safety with real processes: values reach the child exactly, as single argv elements,
// and nothing in them runs. The marker file must survive every attempt.
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ECHO_ARGV, runInvocation, workspaceWithMarker } from '../test/run-invocation.js';
import { buildInvocation, expandTool } from './index.js';

const HOSTILE_VALUES = [
  '; rm -f marker',
  '$(rm -f marker)',
  '`rm -f marker`',
  '" ; rm -f marker ; "',
  "'; rm -f marker; '",
  'x\nrm -f marker\n',
  '&& rm -f marker',
  '| rm -f marker',
  '> marker',
  '--help',
  '-rf',
  '${AGENT_HOME}',
  '${CWD}/x',
  '$HOME $1 $@',
  '$&',
  '*',
  'mark?r',
  '~',
  '',
  '  spaced  \t',
  '\\',
  '"',
  "'",
  'é ✓ 日本',
];

/** An agent directory whose path is itself hostile: engine variables must not become code either. */
function hostileAgentHome(dir: string): string {
  const home = join(dir, "agent home 'q' \"d\" $(touch pwned) `touch pwned2`");
  mkdirSync(home);
  copyFileSync(ECHO_ARGV, join(home, 'echo-argv.mjs'));
  return home;
}

function parseOutput(stdout: string): { argv: string[]; stdin: string } {
  return JSON.parse(stdout) as { argv: string[]; stdin: string };
}

describe('exec: mode with hostile values', () => {
  it.each(HOSTILE_VALUES)('passes %j as exactly one argument, in place', async (value) => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({
      name: 'probe',
      exec: 'node ${AGENT_HOME}/echo-argv.mjs [%s] ${value} --name=${value} "quoted ${value}" END',
      stdin: 'content',
    });
    const invocation = buildInvocation(tool, { value, content: value }, { AGENT_HOME: home, CWD: dir });
    expect(invocation.file).toBe('node');
    const outcome = await runInvocation(invocation, dir);
    expect(outcome.exitCode).toBe(0);
    expect(parseOutput(outcome.stdout)).toEqual({ argv: ['[%s]', value, `--name=${value}`, `quoted ${value}`, 'END'], stdin: value });
    expect(existsSync(marker)).toBe(true);
    expect(readdirSync(dir)).toHaveLength(2); // the agent directory and the marker: nothing created
  });
});

describe('shell: mode (not raw) with hostile values', () => {
  it.each(HOSTILE_VALUES)('passes %j literally in plain and double-quoted positions', async (value) => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({
      name: 'probe',
      shell: 'node ${AGENT_HOME}/echo-argv.mjs ${value} "in double: ${value}" ${CWD} "$(printf %s ${value})" | cat\necho; echo after',
      stdin: 'content',
    });
    const invocation = buildInvocation(tool, { value, content: value }, { AGENT_HOME: home, CWD: dir });
    expect(invocation.file).toBe('sh');
    const outcome = await runInvocation(invocation, dir);
    expect(outcome.exitCode).toBe(0);
    const [json, after] = outcome.stdout.split('\n');
    // $(...) strips trailing newlines, as command substitution always does.
    expect(parseOutput(json as string)).toEqual({ argv: [value, `in double: ${value}`, dir, value.replace(/\n+$/, '')], stdin: value });
    expect(after).toBe('after');
    expect(existsSync(marker)).toBe(true);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(readdirSync(dir)).toHaveLength(2);
  });
});

describe('command: mode with hostile values', () => {
  it.each(HOSTILE_VALUES)('appends %j as exactly one argument', async (value) => {
    const { dir, marker } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({
      name: 'probe',
      command: ['node', '${AGENT_HOME}/echo-argv.mjs', 'fixed'],
      parameters: [
        { name: 'value', inject_as: 'argument' },
        { name: 'flag', inject_as: 'option', option_name: '--flag' },
      ],
    });
    const outcome = await runInvocation(buildInvocation(tool, { value, flag: value }, { AGENT_HOME: home, CWD: dir }), dir);
    expect(parseOutput(outcome.stdout).argv).toEqual(['fixed', '--flag', value, value]);
    expect(existsSync(marker)).toBe(true);
  });
});

describe(':raw is the documented escape hatch: its value IS interpreted by the shell', () => {
  it('splits a raw value into words and expands globs, where a quoted value stays whole', async () => {
    const { dir } = workspaceWithMarker();
    const home = hostileAgentHome(dir);
    const tool = expandTool({ name: 'probe', shell: 'node ${AGENT_HOME}/echo-argv.mjs ${flags:raw} ${pattern:raw} -- ${safe}' });
    const outcome = await runInvocation(
      buildInvocation(tool, { flags: '-a  -b', pattern: 'mark*', safe: 'mark* -c' }, { AGENT_HOME: home, CWD: dir }),
      dir,
    );
    expect(parseOutput(outcome.stdout).argv).toEqual(['-a', '-b', 'marker', '--', 'mark* -c']);
  });

  it('lets a raw value run code when the template itself evaluates it', async () => {
    const { dir, marker } = workspaceWithMarker();
    const tool = expandTool({ name: 'unsafe', shell: 'eval ${script:raw}' });
    await runInvocation(buildInvocation(tool, { script: 'rm -f marker' }, { AGENT_HOME: dir, CWD: dir }), dir);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('commandLine', () => {
  it.each(HOSTILE_VALUES)('runs the same argv when %j is pasted into sh', async (value) => {
    const { dir, marker } = workspaceWithMarker();
    const tool = expandTool({ name: 'probe', exec: `node ${ECHO_ARGV.replace(/ /g, '\\ ')} \${value} END` });
    const invocation = buildInvocation(tool, { value }, { AGENT_HOME: dir, CWD: dir });
    const outcome = await runInvocation({ file: 'sh', args: ['-c', invocation.commandLine], commandLine: '' }, dir);
    expect(parseOutput(outcome.stdout).argv).toEqual([value, 'END']);
    expect(existsSync(marker)).toBe(true);
  });
});
