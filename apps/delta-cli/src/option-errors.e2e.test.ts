import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { readJournal, readLatestRunId, runPaths } from '@delta/journal';
import { optionAsTyped, optionValuesAsTyped } from './option-as-typed.js';
import { runDelta } from './test-support.js';

afterEach(cleanupTestResources);

/** Every command, with what it needs to get as far as checking its options. */
const COMMANDS = [
  ['run', '-m', 'x'],
  ['continue', '-w', '.'],
  ['list'],
  ['list-runs'],
  ['log'],
  ['show', 'invocation', '1'],
  ['view'],
  ['init', 'dir'],
  ['tool', 'expand'],
];

describe('option errors name options as the user typed them', () => {
  it.each(COMMANDS)('delta %s', async (...command) => {
    for (const typed of ['--bogus-flag', '--no-such-thing', '--run-idd=5']) {
      const result = await runDelta([...command, typed]);
      const name = typed.split('=')[0];
      expect(result.exitCode, `${command.join(' ')} ${typed}`).toBe(2);
      expect(result.stderr).toBe(`Error: Unknown option \`${name}\`\nHint: see \`delta ${command[0]} --help\`.\n`);
    }
  });

  it('delta with an option and no command: refused, never the help with exit code 0', async () => {
    for (const typed of ['--bogus-flag', '--run-id=x', '-z']) {
      const result = await runDelta([typed]);
      expect(result.exitCode, typed).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`Error: Unknown option \`${typed.split('=')[0]}\`\nHint: see \`delta --help\`.\n`);
    }
    const help = await runDelta([]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('list-runs');
  });

  it('an option of another command: delta log --max-iterations, never --maxIterations', async () => {
    const result = await runDelta(['log', '--max-iterations', '3']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Unknown option `--max-iterations`');
    expect(result.stderr).not.toContain('maxIterations');
    const missing = await runDelta(['run', '-m', '--run-id', 'x']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('option `-m, --message <text>` value is missing');
  });

  it('finds the spelling in argv, stops at --, and falls back to kebab-case', () => {
    expect(optionAsTyped('runId', ['run', '--run-id=a'])).toBe('--run-id');
    expect(optionAsTyped('runId', ['run', '--runId', 'a'])).toBe('--runId');
    expect(optionAsTyped('color', ['--no-color'])).toBe('--no-color');
    expect(optionAsTyped('x', ['-qx'])).toBe('-x');
    expect(optionAsTyped('runId', ['--', '--run-id'])).toBe('--run-id');
    expect(optionAsTyped('maxIterations', [])).toBe('--max-iterations');
  });

  it('keeps option values as typed (mri would read 007 as the number 7)', () => {
    const declared = [
      { rawName: '-m, --message <text>', name: 'message' },
      { rawName: '--run-id <id>', name: 'runId' },
      { rawName: '-y, --yes', name: 'yes', isBoolean: true },
    ];
    const numbers = { message: 1000, runId: 7, yes: true };
    expect(optionValuesAsTyped(declared, ['run', '-m', '1e3', '--run-id=007', '-y'], numbers)).toEqual({ message: '1e3', runId: '007' });
    expect(optionValuesAsTyped(declared, ['--message', 'a', '--message', '010', '--', '-m', 'no'], { message: 10 })).toEqual({
      message: '010',
    });
    // Only numbers are put back: a missing value stays for cac to report.
    expect(optionValuesAsTyped(declared, ['-m', '--run-id', 'x'], { message: true, runId: 'x' })).toEqual({});
  });

  it('a run started with --run-id 007 -m 1e3 is named 007 and told "1e3"', async () => {
    const server = await startFakeLlm({ script: [{ content: 'ok' }] });
    const agent = await createTempAgent({ agentYaml: { name: 'numbers', llm: { model: 'm', max_retries: 0 } } });
    const work = join(await createTempDir('numbers-'), 'w');
    const result = await runDelta(['run', '--agent', agent, '-w', work, '--run-id', '007', '-m', '1e3'], {
      env: modelEnv(server),
    });
    expect(result.exitCode).toBe(0);
    expect(readLatestRunId(work)).toBe('007');
    const events = readJournal(runPaths(work, '007').journal);
    expect(events.find((event) => event.type === 'USER_MESSAGE')).toMatchObject({ content: '1e3' });
  });
});
