import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir, runProcess, writeFiles } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './public-packages.js';

const CHECK = join(REPOSITORY_ROOT, 'scripts', 'check-exports.mjs');

/** A repository with one library package, @delta/demo, whose entry point exports the given source. */
async function demoRepository(files: Record<string, string>): Promise<string> {
  const root = await createTempDir('check-exports-');
  const manifest = {
    name: '@delta/demo',
    version: '0.0.0',
    type: 'module',
    exports: { '.': { '@delta/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' } },
  };
  await writeFiles(root, {
    'packages/demo/package.json': JSON.stringify(manifest),
    // A private package is not published: its exports are never checked.
    'packages/internal/package.json': JSON.stringify({ ...manifest, name: '@delta/internal', private: true }),
    'packages/internal/src/index.ts': 'export const hidden = 1;\n',
    ...files,
  });
  return root;
}

const check = (root: string) => runProcess('node', [CHECK, '--root', root]);

afterEach(() => cleanupTempDirs());

describe('scripts/check-exports.mjs', () => {
  it('fails naming the undocumented export, and passes once the README documents it', async () => {
    const root = await demoRepository({
      'packages/demo/src/index.ts': "export { documented, undocumented } from './lib.js';\n",
      'packages/demo/src/lib.ts': 'export const documented = 1;\nexport const undocumented = 2;\n',
      'packages/demo/README.md': '# @delta/demo\n\n## API\n\n- `documented`: the one name this package promises.\n',
    });

    const before = await check(root);
    expect(before.exitCode).toBe(1);
    expect(before.stderr).toContain('@delta/demo (packages/demo/src/index.ts): 1 of 2 exports undocumented:\n  undocumented\n');
    expect(before.stderr).toContain('fix: document each in packages/demo/README.md');
    expect(before.stderr).not.toMatch(/^ {2}documented$/m);
    expect(before.stderr).not.toContain('hidden');

    appendFileSync(join(root, 'packages/demo/README.md'), '- `undocumented(x)`: now documented too.\n');
    const after = await check(root);
    expect(after.stderr).toBe('');
    expect(after.stdout).toContain('check-exports: 1 library packages export only what their READMEs document');
    expect(after.exitCode).toBe(0);
  });

  it('follows export * into the package, reads declarations in the entry point, and ignores the word in prose', async () => {
    const root = await demoRepository({
      'packages/demo/src/index.ts': [
        "export * from './more.js';",
        'export function declared(): void {}',
        'export type Declared = { a: number };',
        '',
      ].join('\n'),
      'packages/demo/src/more.ts': 'export const fromStar = 1;\nexport interface StarType {}\n',
      // Named in prose only (not a code span): that is not documentation of the export.
      'packages/demo/README.md':
        '# demo\n\n`declared` and `Declared`. StarType is a type.\n\n```ts\nimport { fromStar } from "@delta/demo";\n```\n',
    });

    const result = await check(root);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('1 of 4 exports undocumented:\n  StarType\n');
  });

  it('counts docs/library.md for a package whose README links to it', async () => {
    const root = await demoRepository({
      'packages/demo/src/index.ts': "export { guided } from './lib.js';\n",
      'packages/demo/src/lib.ts': 'export const guided = 1;\n',
      'packages/demo/README.md': '# demo\n\nNothing here.\n',
      'docs/library.md': '# Library\n\n`guided` is in the guide.\n',
    });

    expect((await check(root)).exitCode).toBe(1);
    appendFileSync(join(root, 'packages/demo/README.md'), 'The guide is [docs/library.md](../../docs/library.md).\n');
    const linked = await check(root);
    expect(linked.stderr).toBe('');
    expect(linked.exitCode).toBe(0);
  });

  it('with --unused, fails on a value export no other package uses and no example shows; types are not counted', async () => {
    const root = await demoRepository({
      'packages/demo/src/index.ts': "export { shown, imported, unused } from './lib.js';\nexport type { Shape } from './lib.js';\n",
      'packages/demo/src/lib.ts':
        'export const shown = 1;\nexport const imported = 2;\nexport const unused = 3;\nexport type Shape = { a: number };\n',
      'packages/demo/README.md': '# demo\n\n`shown`, `imported`, `unused`, `Shape`.\n\n```ts\nconsole.log(shown);\n```\n',
      // Another package's source that imports from @delta/demo names `imported`; a private one counts as a user too.
      'packages/internal/src/use.ts': "import { imported } from '@delta/demo';\nexport const used = imported;\n",
    });
    const unusedCheck = (where: string) => runProcess('node', [CHECK, '--root', where, '--unused']);

    const before = await unusedCheck(root);
    expect(before.exitCode).toBe(1);
    expect(before.stderr).toContain(
      '@delta/demo (packages/demo/src/index.ts): 1 of 3 value exports used by no other package and no example:\n  unused\n',
    );
    // Without --unused the same repository passes: every export is documented.
    expect((await check(root)).exitCode).toBe(0);

    appendFileSync(join(root, 'docs.md'), '```ts\nconst value = unused;\n```\n');
    const after = await unusedCheck(root);
    expect(after.stderr).toBe('');
    expect(after.stdout).toContain('and only values another package or an example uses');
    expect(after.exitCode).toBe(0);
  });
});
