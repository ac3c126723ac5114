import { usageError } from '../usage-error.js';
import { parseWholeNumber } from '../run-limit-flags.js';
import { engineEnvironment } from '../handed-keys.js';
import { abortOnSignals } from '../signals.js';

export interface GradeFlags {
  grader?: string;
  concurrency?: string | number;
  json?: boolean;
}

/** `delta grade OUT [--grader CMD]`: score every completed run of a batch again (by default with its own grader), without running anything else. */
export async function gradeCommand(out: string | undefined, flags: GradeFlags): Promise<number> {
  if (out === undefined) throw usageError('delta grade needs the batch directory.', 'For example: delta grade results --grader ./grade.sh');
  if (flags.grader !== undefined && String(flags.grader).trim() === '') {
    throw usageError('--grader is empty.', 'For example: delta grade results --grader "sh /path/to/grade.sh"');
  }
  const concurrency = parseWholeNumber('--concurrency', flags.concurrency, '--concurrency 8') ?? 4;
  const { gradeBatch, describeKey } = await import('@delta/experiments');
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'grading');
  try {
    let failed = 0;
    const grades = await gradeBatch(out, {
      ...(flags.grader === undefined ? {} : { grader: String(flags.grader) }),
      concurrency,
      // The same environment a batch gives its grader; the model keys are left out.
      environment: engineEnvironment(),
      signal: controller.signal,
      onGraded: (key, grade) => {
        if (grade.score === null) failed += 1;
        if (flags.json === true) process.stdout.write(`${JSON.stringify({ key, ...grade })}\n`);
        else
          process.stdout.write(`${describeKey(key)}: ${grade.score === null ? `grader error: ${grade.error}` : `score ${grade.score}`}\n`);
      },
    });
    if (flags.json !== true)
      process.stdout.write(
        `${grades.length} run${grades.length === 1 ? '' : 's'} graded${failed ? `, ${failed} without a score` : ''}. Report: delta report ${out}\n`,
      );
    if (controller.signal.aborted) return 130;
    return failed > 0 ? 1 : 0;
  } finally {
    release();
  }
}
