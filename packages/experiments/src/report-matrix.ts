import type { BatchRunRow } from './collect-runs.js';

/** One cell of the model x task matrix: a model's runs of one task. */
export interface MatrixCell {
  task: string;
  model: string;
  runs: number;
  /** Runs with a score (graded, or FAILED, which counts as 0). */
  scored: number;
  /** Runs that passed (score 1), for a pass/fail matrix; null for scores. */
  passes: number | null;
  /** The pass rate or mean score over its scored runs; null when none is scored. */
  value: number | null;
}

export interface ModelTaskMatrix {
  /** `pass_rate` when every score of the batch is 0 or 1, else `mean_score`; null when nothing is scored. */
  metric: 'pass_rate' | 'mean_score' | null;
  models: string[];
  tasks: string[];
  /** Task by task, each task's models in order. */
  cells: MatrixCell[];
}

/** A run's score for the report: its grade, or 0 when it FAILED (a failure is not left out of a rate). */
export function scoreOf(row: BatchRunRow): number | null {
  if (row.score !== null) return row.score;
  if (row.status === 'FAILED') return 0;
  return null;
}

export function modelTaskMatrix(rows: readonly BatchRunRow[], models: readonly string[], tasks: readonly string[]): ModelTaskMatrix {
  const all = rows.map(scoreOf).filter((score): score is number => score !== null);
  const binary = all.every((score) => score === 0 || score === 1);
  const cells: MatrixCell[] = [];
  for (const task of tasks) {
    for (const model of models) {
      const runs = rows.filter((row) => row.task === task && row.model === model);
      const scores = runs.map(scoreOf).filter((score): score is number => score !== null);
      cells.push({
        task,
        model,
        runs: runs.length,
        scored: scores.length,
        passes: binary ? scores.filter((score) => score === 1).length : null,
        value: scores.length === 0 ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length,
      });
    }
  }
  return { metric: all.length === 0 ? null : binary ? 'pass_rate' : 'mean_score', models: [...models], tasks: [...tasks], cells };
}

/** A model's value on each task it has one for: the column of the matrix a paired comparison reads. */
export function modelValues(matrix: ModelTaskMatrix, model: string): Map<string, number> {
  return new Map(
    matrix.cells.filter((cell) => cell.model === model && cell.value !== null).map((cell) => [cell.task, cell.value!] as const),
  );
}
