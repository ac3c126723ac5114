import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { gradeFileOf, graderGradeFile, readGrades, writeGrade } from './grade-store.js';
import type { Grade } from './grade-schema.js';

afterEach(cleanupTempDirs);

const grade = (grader: string, score: number): Grade => ({
  score,
  passed: null,
  grader,
  exit_code: 0,
  run_id: 'r1',
  graded_at: '2026-11-26T12:00:00.000Z',
});

describe('readGrades on a run directory a tool could write', () => {
  it('reads the grades the engine wrote, and skips a FIFO, text that is not JSON and JSON that is not a grade', async () => {
    const runDir = await createTempDir('delta-grades-');
    writeGrade(runDir, grade('./check.sh', 0.5));
    mkdirSync(join(runDir, 'grades'), { recursive: true });
    execFileSync('mkfifo', [graderGradeFile(runDir, './fifo.sh')]);
    writeFileSync(graderGradeFile(runDir, './torn.sh'), '{"score":');
    writeFileSync(graderGradeFile(runDir, './shape.sh'), '{"score":"high","grader":"./shape.sh"}');
    const grades = readGrades(runDir);
    expect([...grades.values()].map((found) => [found.grader, found.score])).toEqual([['./check.sh', 0.5]]);
  });

  it('skips a grade.json that is JSON null', async () => {
    const runDir = await createTempDir('delta-grades-');
    writeFileSync(gradeFileOf(runDir), 'null');
    expect(readGrades(runDir).size).toBe(0);
  });
});
