import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { REPOSITORY_ROOT, latestRun, pathWithoutDelta, runProcess } from './run-delta.js';

afterEach(cleanupTempDirs);

const MARK = '#### block';

/** The ```sh test blocks of a Markdown file, in order. */
function testedBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh test\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

describe('docs/getting-started.md', () => {
  it('runs every `sh test` block in order from the repository root, in a fresh HOME with no API key and no delta on PATH but what the page puts there', async () => {
    const blocks = testedBlocks(readFileSync(join(REPOSITORY_ROOT, 'docs/getting-started.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(9);
    const home = await createTempDir('getting-started-');
    const script = ['set -euo pipefail', ...blocks.map((block, index) => `echo '${MARK} ${index}'\n${block}`)].join('\n');

    const result = await runProcess('bash', ['-c', script], {
      cwd: REPOSITORY_ROOT,
      env: { HOME: home, PATH: pathWithoutDelta(), DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, DELTA_BASE_URL: undefined },
    });
    expect(result.stderr).not.toMatch(/Error|not found/);
    expect(result.exitCode).toBe(0);
    const outputs = result.stdout.split(new RegExp(`^${MARK} \\d+\\n`, 'm')).slice(1);
    expect(outputs).toHaveLength(blocks.length);
    const output = (command: string) => outputs[blocks.findIndex((block) => block.includes(command))]!;

    expect(output('delta --version')).toMatch(/^delta\/\d+\.\d+\.\d+ /);
    expect(output('delta init').split('\n')).toEqual(expect.arrayContaining(['agent.yaml', 'context.yaml', 'system_prompt.md']));
    expect(output('delta tool expand')).toContain('- name: greet');
    expect(output('delta run --agent my-agent')).toBe('I greeted the world and saved the greeting in greeting.txt.\n');
    expect(output('cat my-agent/workspaces/W001/greeting.txt')).toBe('Hello, World!\n');
    expect(output('cat $RUN/metadata.json')).toContain('"status": "COMPLETED"');
    expect(output('grep -o \'"type"')).toBe(
      [
        'ENGINE_START',
        'USER_MESSAGE',
        'THOUGHT',
        'ACTION_REQUEST',
        'ACTION_RESULT',
        'THOUGHT',
        'ACTION_REQUEST',
        'ACTION_RESULT',
        'THOUGHT',
        'ENGINE_END',
      ]
        .map((type) => `"type":"${type}"\n`)
        .join(''),
    );
    expect(output('command.txt')).toBe('echo Hello\\, World\\!\ntee -- greeting.txt\nHello, World!\nHello, World!\n');
    expect(output('delta continue')).toBe('I greeted Mars too.\n2\n');

    const workspace = join(home, 'delta-tutorial/my-agent/workspaces/W001');
    expect(existsSync(join(workspace, 'greeting.txt'))).toBe(true);
    const { metadata, journal } = latestRun(workspace);
    expect(metadata).toMatchObject({ status: 'COMPLETED' });
    expect(journal.filter((event) => event.type === 'USER_MESSAGE').map((event) => (event as { content: string }).content)).toEqual([
      'Greet the world and save the greeting',
      'Now greet Mars too',
    ]);
  });
});
