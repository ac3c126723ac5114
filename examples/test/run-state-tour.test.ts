import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './run-delta.js';

const PAGE = 'docs/run-state.md';
const HEADING = '## One iteration, file by file';

/** The tour: the page from its heading to the next heading of the same level. */
function tourSection(page: string): string {
  const start = page.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`${PAGE} has no section "${HEADING}"`);
  const rest = page.slice(start + HEADING.length + 2);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

interface Citation {
  file: string;
  names: string[];
}

/** Each `path/to/file.ts` followed by the names cited in it: `name`, or `a`, `b` and `c`. */
function citations(section: string): Citation[] {
  const found: Citation[] = [];
  const pattern = /`([\w./-]+\.(?:ts|js|mjs))`((?:(?:,\s*|\s+and\s+|\s+)`[A-Za-z_$][\w$]*`)+)/g;
  for (const match of section.matchAll(pattern)) {
    found.push({ file: match[1]!, names: [...match[2]!.matchAll(/`([^`]+)`/g)].map((name) => name[1]!) });
  }
  return found;
}

/** Whether `source` defines `name`: a function, a class, a constant, or a method. */
function defines(source: string, name: string): boolean {
  const escaped = name.replace(/\$/g, '\\$');
  return [
    new RegExp(`\\bfunction\\*?\\s+${escaped}\\b`),
    new RegExp(`\\bclass\\s+${escaped}\\b`),
    new RegExp(`\\b(?:const|let)\\s+${escaped}\\s*[=:]`),
    new RegExp(`^\\s*(?:(?:public|private|protected|static|async|readonly|get|set)\\s+)*${escaped}\\s*[(<]`, 'm'),
  ].some((pattern) => pattern.test(source));
}

/** What in the tour is not true of the repository: a file that is missing, a name its file does not define. */
function tourProblems(section: string, root: string): string[] {
  const problems: string[] = [];
  for (const { file, names } of citations(section)) {
    const path = join(root, file);
    if (!existsSync(path)) {
      problems.push(`${PAGE}: "${HEADING}" cites ${file}, which does not exist`);
      continue;
    }
    const source = readFileSync(path, 'utf8');
    for (const name of names) {
      if (!defines(source, name)) problems.push(`${PAGE}: "${HEADING}" cites ${name} in ${file}, which does not define it`);
    }
  }
  return problems;
}

describe(`the guided tour of one iteration (${PAGE})`, () => {
  const section = tourSection(readFileSync(join(REPOSITORY_ROOT, PAGE), 'utf8'));

  it('cites the loop, think, act, observe and journal steps by file and function', () => {
    const cited = citations(section).flatMap(({ file, names }) => names.map((name) => `${file} ${name}`));
    expect(cited).toEqual(
      expect.arrayContaining([
        'packages/engine-core/src/run-loop.ts runLoop',
        'packages/engine-core/src/next-step.ts nextStep',
        'packages/engine-core/src/think.ts think',
        'packages/engine-core/src/think.ts recordAnswer',
        'packages/engine-core/src/act.ts act',
        'packages/engine-core/src/observation.ts formatObservation',
        'packages/engine-core/src/run-context.ts record',
        'packages/engine-core/src/release-memory.ts releaseAfterLarge',
      ]),
    );
  });

  it('every cited file exists and defines every function cited with it', () => {
    expect(tourProblems(section, REPOSITORY_ROOT)).toEqual([]);
  });

  it('catches a misspelled function and a file that moved', () => {
    const misspelled = section.replace('`recordAnswer`', '`recordAnswr`');
    expect(tourProblems(misspelled, REPOSITORY_ROOT)).toEqual([
      `${PAGE}: "${HEADING}" cites recordAnswr in packages/engine-core/src/think.ts, which does not define it`,
    ]);
    const moved = section.replace('`packages/engine-core/src/think.ts` `think`', '`packages/engine-core/src/thinking.ts` `think`');
    expect(tourProblems(moved, REPOSITORY_ROOT)).toEqual([
      `${PAGE}: "${HEADING}" cites packages/engine-core/src/thinking.ts, which does not exist`,
    ]);
  });
});
