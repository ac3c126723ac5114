import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir, startFakeLlm } from '@delta/testkit';
import { scanFences } from './markdown-fences.js';
import { EXAMPLES, PATH_WITH_REPOSITORY_BINS, REPOSITORY_ROOT, runProcess } from './run-delta.js';

afterEach(cleanupTempDirs);

const page = readFileSync(join(REPOSITORY_ROOT, 'docs/getting-started.md'), 'utf8');
const shellBlocks = scanFences(page).filter((fence) => /^(sh|bash|shell)\b/.test(fence.info));
const blocksMarked = (info: string) => shellBlocks.filter((fence) => fence.info === info);
const ciScript = readFileSync(join(REPOSITORY_ROOT, '.ci/run'), 'utf8');

describe('docs/getting-started.md: every command block is run or checked', () => {
  it('marks each shell block `sh test` (run), `sh ci` (what CI runs) or `sh real-model` (run against a scripted model)', () => {
    const unmarked = shellBlocks
      .filter((fence) => !['sh test', 'sh ci', 'sh real-model'].includes(fence.info))
      .map((fence) => `line ${fence.openLine}: ${fence.info}`);
    expect(unmarked).toEqual([]);
    expect(blocksMarked('sh test').length).toBeGreaterThanOrEqual(10);
  });

  it('installs exactly as CI does: the same pnpm as .ci/run and packageManager, and the same install and build', () => {
    const pnpmVersion = /^PNPM_VERSION=(\S+)$/m.exec(ciScript)?.[1];
    const packageManager = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')).packageManager;
    const commands = blocksMarked('sh ci').flatMap((fence) => fence.body.split('\n').filter((line) => line.trim() !== ''));
    expect(commands).toContain(`npm i -g pnpm@${pnpmVersion}`);
    expect(packageManager).toBe(`pnpm@${pnpmVersion}`);
    const ciLines = ciScript.split('\n').map((line) => line.trim());
    for (const command of commands.filter((line) => !line.startsWith('npm i -g pnpm@'))) expect(ciLines).toContain(command);
  });

  it('a `sh real-model` block, with a model key and URL in place of the examples, is all `delta run` needs', async () => {
    const key = 'sk-getting-started-test';
    const model = await startFakeLlm({
      apiKey: key,
      script: [
        { content: 'Greeting.', tool_calls: [{ name: 'greet', arguments: { name: 'World' } }] },
        { content: 'I greeted the world.' },
      ],
    });
    try {
      const home = await createTempDir('getting-started-key-');
      const [block] = blocksMarked('sh real-model');
      expect(block?.body).toContain('sk-...');
      expect(block?.body).toContain('http://localhost:11434/v1');
      const commands = block!.body.replaceAll('sk-...', key).replaceAll('http://localhost:11434/v1', model.baseUrl);
      const script = [
        'set -euo pipefail',
        'delta init my-agent -t hello-world >/dev/null',
        commands,
        'delta run --agent my-agent -m "Greet the world" -y',
      ].join('\n');
      const result = await runProcess('bash', ['-c', script], {
        cwd: home,
        env: {
          HOME: home,
          PATH: PATH_WITH_REPOSITORY_BINS,
          DELTA_API_KEY: undefined,
          OPENAI_API_KEY: undefined,
          DELTA_BASE_URL: undefined,
        },
      });
      expect(result.stderr).not.toMatch(/Error/);
      expect(result.stdout).toBe('I greeted the world.\n');
      expect(result.exitCode).toBe(0);
      expect(model.requests.map((request) => request.status)).toEqual([200, 200]);
    } finally {
      await model.close();
    }
  });

  it('counts the examples as they are', () => {
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
    expect(page).toContain(`[examples/](../examples): ${words[EXAMPLES.length]} agents,`);
  });
});
