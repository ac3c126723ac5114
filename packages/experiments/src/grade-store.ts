import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskWrite, makeDirectory, safeParseJson } from '@delta/errors';
import { readRunRecord } from '@delta/journal';
import { Grade } from './grade-schema.js';

/** Where each grader's verdict on a run is kept: `<run dir>/grades/<grader hash>.json`, one file per grader. */
export const GRADES_DIRECTORY = 'grades';
/** The latest verdict, whichever grader gave it (what batches before per-grader grades wrote alone). */
export const GRADE_FILE = 'grade.json';
/** A grade file larger than this is not one the engine wrote; it is left out. */
const MAX_GRADE_BYTES = 2 * 1024 * 1024;

/** A grader's identity: the first 12 hex digits of the SHA-256 of its command (or `builtin:` name) as given. */
export function graderHash(grader: string): string {
  return createHash('sha256').update(grader).digest('hex').slice(0, 12);
}

export function gradeFileOf(runDir: string): string {
  return join(runDir, GRADE_FILE);
}

export function graderGradeFile(runDir: string, grader: string): string {
  return join(runDir, GRADES_DIRECTORY, `${graderHash(grader)}.json`);
}

function writeWhole(file: string, text: string): void {
  // A name of our own, created exclusively: a link planted where the temporary file goes is never written through.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  diskWrite(file, () => {
    writeFileSync(temporary, text, { flag: 'wx' });
    renameSync(temporary, file);
  });
}

function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Records a grade under its grader's own file (never another grader's) and as the run's latest grade.json. */
export function writeGrade(runDir: string, grade: Grade): void {
  const text = `${JSON.stringify(grade, null, 2)}\n`;
  makeDirectory(join(runDir, GRADES_DIRECTORY));
  writeWhole(graderGradeFile(runDir, grade.grader), text);
  writeWhole(gradeFileOf(runDir), text);
}

/**
 * A grade file as the engine wrote it, or undefined: missing, a link, not a regular file, too large, or not
 * a grade. A tool can write the run directory, so the file is read as a run record: a FIFO swapped in after
 * the lstat is refused, not waited on.
 */
function readGradeFile(file: string): Grade | undefined {
  let bytes: Buffer | undefined;
  try {
    if (!lstatSync(file).isFile()) return undefined;
    bytes = readRunRecord(file, MAX_GRADE_BYTES);
  } catch {
    return undefined;
  }
  const parsed = bytes && safeParseJson(bytes.toString('utf8'), file, { schema: Grade });
  return parsed?.success ? parsed.data : undefined;
}

/**
 * Every grader's verdict on the run in `runDir`, by grader hash. A batch graded before grades were kept per
 * grader has grade.json alone: it counts as the grade of the grader it names.
 */
export function readGrades(runDir: string): Map<string, Grade> {
  const grades = new Map<string, Grade>();
  const directory = join(runDir, GRADES_DIRECTORY);
  if (isRealDirectory(directory)) {
    for (const name of readdirSync(directory).sort()) {
      if (!name.endsWith('.json')) continue;
      const grade = readGradeFile(join(directory, name));
      if (grade !== undefined && name === `${graderHash(grade.grader)}.json`) grades.set(graderHash(grade.grader), grade);
    }
  }
  const latest = readGradeFile(gradeFileOf(runDir));
  if (latest !== undefined && !grades.has(graderHash(latest.grader))) grades.set(graderHash(latest.grader), latest);
  return grades;
}
