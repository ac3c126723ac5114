import type { BatchDefinition } from './batch-definition.js';
import { type BatchRunRow, collectBatchRuns } from './collect-runs.js';
import { type Interval, meanInterval, median, wilsonInterval } from './statistics.js';

/** The figures of a group of runs (one model, or one task across models). */
export interface GroupStatistics {
  name: string;
  runs: number;
  completed: number;
  failed: number;
  /** Interrupted, killed, waiting for a person, or not started yet. */
  unfinished: number;
  /** Runs with a score: graded completed runs, and failed runs (which count as 0). */
  scored: number;
  /** `pass_rate` when every score is 0 or 1, else `mean_score`; null without scores. */
  metric: 'pass_rate' | 'mean_score' | null;
  /** The pass rate or mean score with its 95% confidence interval (Wilson for a rate, Student t for a mean). */
  score: Interval | null;
  median_iterations: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost: number | null;
  currency: string | null;
  median_duration_ms: number | null;
}

export interface BatchReport {
  out: string;
  definition: BatchDefinition;
  by_model: GroupStatistics[];
  by_task: GroupStatistics[];
  runs: BatchRunRow[];
}

/** A run's score for the report: its grade, or 0 when it FAILED (a failure is not left out of a rate). */
function scoreOf(row: BatchRunRow): number | null {
  if (row.score !== null) return row.score;
  if (row.status === 'FAILED') return 0;
  return null;
}

export function groupStatistics(name: string, rows: readonly BatchRunRow[]): GroupStatistics {
  const scores = rows.map(scoreOf).filter((score): score is number => score !== null);
  const binary = scores.length > 0 && scores.every((score) => score === 0 || score === 1);
  const finished = rows.filter((row) => row.status === 'COMPLETED' || row.status === 'FAILED');
  const costs = rows.map((row) => row.cost).filter((cost): cost is number => cost !== null);
  return {
    name,
    runs: rows.length,
    completed: rows.filter((row) => row.status === 'COMPLETED').length,
    failed: rows.filter((row) => row.status === 'FAILED').length,
    unfinished: rows.length - finished.length,
    scored: scores.length,
    metric: scores.length === 0 ? null : binary ? 'pass_rate' : 'mean_score',
    score:
      scores.length === 0
        ? null
        : binary
          ? wilsonInterval(scores.filter((score) => score === 1).length, scores.length)
          : meanInterval(scores),
    median_iterations: median(finished.map((row) => row.iterations)),
    prompt_tokens: rows.reduce((sum, row) => sum + row.prompt_tokens, 0),
    completion_tokens: rows.reduce((sum, row) => sum + row.completion_tokens, 0),
    cached_tokens: rows.reduce((sum, row) => sum + row.cached_tokens, 0),
    cost: costs.length === 0 ? null : costs.reduce((sum, cost) => sum + cost, 0),
    currency: rows.find((row) => row.currency !== null)?.currency ?? null,
    median_duration_ms: median(finished.map((row) => row.duration_ms).filter((duration): duration is number => duration !== null)),
  };
}

function groupBy(rows: readonly BatchRunRow[], names: readonly string[], field: 'model' | 'task'): GroupStatistics[] {
  return names.map((name) =>
    groupStatistics(
      name,
      rows.filter((row) => row[field] === name),
    ),
  );
}

/** The report of the batch in OUT: per model, per task across models, and every run. */
export function batchReport(out: string): BatchReport {
  const { definition, rows } = collectBatchRuns(out);
  return {
    out,
    definition,
    by_model: groupBy(
      rows,
      definition.models.map((model) => model.name),
      'model',
    ),
    by_task: groupBy(rows, definition.task_ids, 'task'),
    runs: rows,
  };
}
