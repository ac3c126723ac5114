import type { BatchDefinition } from './batch-definition.js';
import { type BatchRunRow, type CollectOptions, collectBatchRuns } from './collect-runs.js';
import { taskGroups } from './metadata-groups.js';
import { type OracleVerdict, oracleVerdicts } from './oracle-verdict.js';
import { adjustHolm, comparePaired, type PairedComparison } from './paired-comparison.js';
import { type ModelTaskMatrix, modelTaskMatrix, modelValues, scoreOf } from './report-matrix.js';
import type { GraderChoice, GraderSummary } from './select-grader.js';
import { type Interval, meanInterval, median, wilsonInterval } from './statistics.js';

/** The figures of a group of runs (one model, or one task across models). */
export interface GroupStatistics {
  name: string;
  runs: number;
  completed: number;
  failed: number;
  /** Interrupted, killed, waiting for a person, or not started yet. */
  unfinished: number;
  /** Runs that ran into a limit (memory, processes, ...; metadata.json's limits_hit), whatever their status. */
  limit_hits: number;
  /** Runs with a score: graded completed runs, and failed runs (which count as 0). */
  scored: number;
  /** With a pass rate: the scored runs that passed (score 1); null for a mean score. */
  passes: number | null;
  /** With a pass rate: the completed runs the verifier (the grader) failed (score 0); null for a mean score. */
  failed_verifications: number | null;
  /**
   * Completed runs the grader gave no verdict on: it could not run, timed out, crashed or printed no score.
   * Left out of the pass rate (the verifier failed, not the model), and counted here.
   */
  verifier_errors: number;
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
  /** The grader whose grades the scores are (null when no run is graded), and every grader that graded a run. */
  grader: GraderSummary | null;
  /** Why that grader: `asked` (--grader), `batch` (the batch's own), `latest` (the batch's own graded no run). */
  grader_choice: GraderChoice | null;
  graders: GraderSummary[];
  /** Each model's pass rate or mean score on each task. */
  matrix: ModelTaskMatrix;
  /** Every two models, on the tasks both have a score for. */
  comparisons: PairedComparison[];
  /** With `by`: the runs grouped by a task metadata field, per model. */
  groups?: { key: string; groups: MetadataGroup[] };
  runs: BatchRunRow[];
  /** When the batch's oracle ran (`delta batch --oracle`): its verdicts, and the tasks left out of every figure above. */
  oracle?: BatchOracle;
}

/** The oracle's part of a report: tasks whose solution the verifier did not pass are left out of the pass rates. */
export interface BatchOracle {
  verifier: string;
  /** Each task's verdict (`passed`, `failed`, `no-oracle`, `not-run`). */
  tasks: OracleVerdict[];
  /** The tasks whose oracle failed: a broken task or image, left out of the figures. */
  left_out: string[];
  /** The tasks with no solution, kept in the figures. */
  no_oracle: string[];
}

/** The runs of the tasks whose metadata field has one value: per model, and all models together. */
export interface MetadataGroup {
  value: string;
  tasks: string[];
  by_model: GroupStatistics[];
  all: GroupStatistics;
}

export interface BatchReportOptions extends CollectOptions {
  /** A task metadata field to group by: `metadata.KEY` or `KEY`. */
  by?: string | undefined;
}

function roundCost(cost: number): number {
  return Number(cost.toFixed(10));
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
    // A run its own time or layer limit ended is final: a limit hit, not a run still to finish.
    unfinished: rows.filter((row) => !finished.includes(row) && row.limits_hit.length === 0).length,
    limit_hits: rows.filter((row) => row.limits_hit.length > 0).length,
    scored: scores.length,
    passes: binary ? scores.filter((score) => score === 1).length : null,
    failed_verifications: binary ? rows.filter((row) => row.status === 'COMPLETED' && row.score === 0).length : null,
    verifier_errors: rows.filter((row) => row.status === 'COMPLETED' && row.score === null && row.grade_error !== null).length,
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
    // Rounded past what any price has, so that a sum reads 0.015981, not 0.01598100000000001.
    cost: costs.length === 0 ? null : roundCost(costs.reduce((sum, cost) => sum + cost, 0)),
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

function metadataGroups(out: string, rows: readonly BatchRunRow[], models: readonly string[], by: string) {
  const { key, groups } = taskGroups(out, by);
  return {
    key,
    groups: [...groups].map(([value, tasks]): MetadataGroup => {
      const inGroup = rows.filter((row) => tasks.includes(row.task));
      return { value, tasks, by_model: groupBy(inGroup, models, 'model'), all: groupStatistics(value, inGroup) };
    }),
  };
}

/**
 * Every two models of the matrix compared, in the batch's order (the first of a pair is `a`); with more than
 * two models, each with its Holm-adjusted p-value.
 */
export function modelComparisons(matrix: ModelTaskMatrix): PairedComparison[] {
  const comparisons: PairedComparison[] = [];
  for (const [index, a] of matrix.models.entries()) {
    for (const b of matrix.models.slice(index + 1)) comparisons.push(comparePaired(a, b, modelValues(matrix, a), modelValues(matrix, b)));
  }
  return adjustHolm(comparisons);
}

/** The report of the batch in OUT: per model, per task across models, the model x task matrix, paired comparisons. */
export function batchReport(out: string, options: BatchReportOptions = {}): BatchReport {
  const collected = collectBatchRuns(out, options);
  const { definition, grader, grader_choice, graders } = collected;
  const oracle = batchOracle(out, definition);
  // A task whose oracle failed is broken, not hard: its runs count in no figure.
  const rows = collected.rows.filter((row) => !oracle?.left_out.includes(row.task));
  const taskIds = definition.task_ids.filter((task) => !oracle?.left_out.includes(task));
  const models = definition.models.map((model) => model.name);
  const matrix = modelTaskMatrix(rows, models, taskIds);
  return {
    out,
    definition,
    by_model: groupBy(rows, models, 'model'),
    by_task: groupBy(rows, taskIds, 'task'),
    grader,
    grader_choice,
    graders,
    matrix,
    comparisons: modelComparisons(matrix),
    ...(options.by === undefined ? {} : { groups: metadataGroups(out, rows, models, options.by) }),
    runs: collected.rows,
    ...(oracle === undefined ? {} : { oracle }),
  };
}

function batchOracle(out: string, definition: BatchDefinition): BatchOracle | undefined {
  const found = oracleVerdicts(out, definition);
  if (found === undefined) return undefined;
  const { verifier, tasks } = found;
  const of = (kind: OracleVerdict['verdict']) => tasks.filter((task) => task.verdict === kind).map((task) => task.task);
  return {
    verifier,
    tasks,
    left_out: of('failed'),
    no_oracle: of('no-oracle'),
  };
}
