import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFences, unclosedFences } from './markdown-fences.js';
import { REPOSITORY_ROOT } from './run-delta.js';

/** Every Markdown page a user reads: docs/ (decisions included), the READMEs of the repository, packages, apps and examples. */
function pages(): string[] {
  const found: string[] = [join(REPOSITORY_ROOT, 'README.md')];
  const walk = (directory: string, onlyReadmes: boolean) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (['node_modules', 'workspaces', 'dist', 'recorded'].includes(entry.name) || entry.name.startsWith('.')) continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path, onlyReadmes);
      else if (entry.name.endsWith('.md') && (!onlyReadmes || entry.name === 'README.md')) found.push(path);
    }
  };
  walk(join(REPOSITORY_ROOT, 'docs'), false);
  for (const top of ['packages', 'apps', 'examples']) walk(join(REPOSITORY_ROOT, top), true);
  return found.map((path) => relative(REPOSITORY_ROOT, path)).sort();
}

describe('the fence scanner (CommonMark fences)', () => {
  it('closes a fence only with the same character, at least as many, and nothing after it', () => {
    expect(scanFences('```sh\necho\n```\n')[0]).toMatchObject({ info: 'sh', openLine: 1, closeLine: 3, body: 'echo' });
    expect(scanFences('````yaml\na: 1\n```\n')[0]!.closeLine).toBeUndefined();
    expect(scanFences('```\na\n~~~\n')[0]!.closeLine).toBeUndefined();
    expect(scanFences('```\na\n``` more text\n')[0]!.closeLine).toBeUndefined();
    expect(scanFences('```\na\n`````\n')[0]!.closeLine).toBe(3);
    expect(scanFences('~~~\n```\n~~~\n')).toHaveLength(1);
  });

  it('takes a line with a backtick in its info string for text, and a list item fence closes at its own indentation', () => {
    expect(scanFences('``` a `b` c\n')).toEqual([]);
    expect(scanFences('- item:\n\n  ```sh\n  ls\n  ```\n')[0]!.closeLine).toBe(5);
    expect(scanFences('```\na\n    ```\n')[0]!.closeLine).toBeUndefined();
  });

  it('flags a fence that closes later than meant: a line inside looks like its closer but is not', () => {
    const swallowed = '````yaml\na: 1\n``` Some prose.\n\n## Heading\n\n```yaml\nb: 2\n````\n';
    expect(unclosedFences(swallowed, 'docs/x.md')).toEqual([
      'docs/x.md:1: the fence ````yaml is not closed by line 3 ("``` Some prose."): a fence closes only with a line of at least 4 ` and nothing else, so lines 1-9 render as code (open it with ``` and put the closer alone on its line)',
    ]);
    expect(unclosedFences('````md\n```sh\nls\n```\n````\n', 'docs/x.md')).toEqual([]);
  });

  it('names the page, the line and the fix for an unclosed fence', () => {
    expect(unclosedFences('# T\n\n````yaml\na: 1\n```\n\n## Next\n', 'docs/x.md')).toEqual([
      'docs/x.md:3: the fence ````yaml never closes, so the rest of the page renders as code (close it with a line of ````)',
    ]);
  });
});

describe('the documentation renders', () => {
  it('every page closes every code fence it opens', () => {
    const list = pages();
    expect(list).toEqual(expect.arrayContaining(['README.md', 'docs/tools.md', 'docs/getting-started.md', 'apps/delta-cli/README.md']));
    const problems = list.flatMap((page) => unclosedFences(readFileSync(join(REPOSITORY_ROOT, page), 'utf8'), page));
    expect(problems).toEqual([]);
  });
});
