import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type DeltaErrorKind, errorCodes, exitCodeByKind } from './error-codes.js';

// docs/errors.md is the catalogue a user reads; errorCodes is what the code may throw. Neither may drift.
const catalogue = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

interface Entry {
  code: string;
  kind: DeltaErrorKind | undefined;
  exit: number;
  meaning: string;
  fix: string;
}

function entries(markdown: string): Entry[] {
  const found: Entry[] = [];
  let kind: DeltaErrorKind | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^## (Configuration|Model|System)\b/.exec(line);
    if (heading) kind = heading[1]!.toLowerCase() as DeltaErrorKind;
    else if (line.startsWith('## ')) kind = undefined;
    // A row: | `CODE` | what it means | exit | usual fix |, its cells padded or not.
    const cells = line.startsWith('| `')
      ? line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim())
      : [];
    const code = /^`([A-Z_]+)`$/.exec(cells[0] ?? '');
    if (code && cells.length === 4) found.push({ code: code[1]!, kind, meaning: cells[1]!, exit: Number(cells[2]), fix: cells[3]! });
  }
  return found;
}

describe('docs/errors.md', () => {
  const documented = entries(catalogue);

  it('lists exactly the codes of the DeltaErrorCode union, each once', () => {
    const codes = documented.map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(Object.keys(errorCodes).sort());
  });

  it('puts each code under who is at fault, with the exit code that kind leads to, a meaning and a fix', () => {
    for (const entry of documented) {
      const kind = errorCodes[entry.code as keyof typeof errorCodes];
      expect(entry.kind, entry.code).toBe(kind);
      expect(entry.exit, entry.code).toBe(exitCodeByKind[kind]);
      expect(entry.meaning.length, entry.code).toBeGreaterThan(10);
      expect(entry.fix.length, entry.code).toBeGreaterThan(5);
    }
  });

  it('is linked from the documentation index and from the CLI page', () => {
    for (const page of ['README.md', 'cli.md']) {
      expect(readFileSync(new URL(`../../../docs/${page}`, import.meta.url), 'utf8'), page).toContain('(errors.md)');
    }
  });
});
