import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeLatestRunId } from '@delta/journal';
import { resumableRun } from './resumable-run.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('resumableRun', () => {
  it('is undefined in a workspace without runs, and for a latest run stopped before its metadata existed', () => {
    const workDir = mkdtempSync(join(tmpdir(), 'delta-resumable-'));
    dirs.push(workDir);
    expect(resumableRun(workDir)).toBeUndefined();
    writeLatestRunId(workDir, '20260101_000000_abcdef');
    expect(resumableRun(workDir)).toBeUndefined();
  });
});
