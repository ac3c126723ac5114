import { resolve } from 'node:path';
import { type BatchRunRow, type CollectOptions, collectBatchRuns } from './collect-runs.js';
import { adjustHolm, comparePaired, type PairedComparison } from './paired-comparison.js';
import { type ModelTaskMatrix, modelTaskMatrix, modelValues } from './report-matrix.js';
import type { GraderChoice, GraderSummary } from './select-grader.js';

/** One side of a two-batch comparison. */
export interface ComparedBatch {
  out: string;
  models: string[];
  tasks: number;
  grader: GraderSummary | null;
  grader_choice: GraderChoice | null;
}

/** A model of batch A compared with a model of batch B, and why these two. */
export interface MatchedModels {
  model_a: string;
  model_b: string;
  /** `name`: the same model name in both; `only`: each batch has one model, compared whatever their names. */
  matched_by: 'name' | 'only';
  comparison: PairedComparison;
}

export interface BatchComparison {
  a: ComparedBatch;
  b: ComparedBatch;
  /** Task ids both batches hold: the comparison is on these alone. */
  common_tasks: string[];
  only_a: string[];
  only_b: string[];
  pairs: MatchedModels[];
  /** Models of one batch with no match in the other. */
  unmatched_a: string[];
  unmatched_b: string[];
  /** The common tasks, columns `A:model` and `B:model` for each matched pair. */
  matrix: ModelTaskMatrix;
}

function label(side: 'A' | 'B', model: string): string {
  return `${side}:${model}`;
}

function relabel(rows: readonly BatchRunRow[], side: 'A' | 'B'): BatchRunRow[] {
  return rows.map((row) => ({ ...row, model: label(side, row.model) }));
}

/** Each pair's comparison with its Holm-adjusted p-value, when there are several pairs. */
function pairsWithHolm(pairs: MatchedModels[]): MatchedModels[] {
  const adjusted = adjustHolm(pairs.map((pair) => pair.comparison));
  return pairs.map((pair, index) => ({ ...pair, comparison: adjusted[index]! }));
}

/**
 * Batch A against batch B (before and after a prompt change, say) on the tasks both hold, matched by task id.
 * Models are matched by name; when each batch has exactly one model they are compared whatever their names.
 * Each batch's scores come from its own grader (else its latest), or from `grader` in both.
 */
export function compareBatches(outA: string, outB: string, options: CollectOptions = {}): BatchComparison {
  const a = collectBatchRuns(outA, options);
  const b = collectBatchRuns(outB, options);
  const modelsA = a.definition.models.map((model) => model.name);
  const modelsB = b.definition.models.map((model) => model.name);
  const inB = new Set(b.definition.task_ids);
  const common = a.definition.task_ids.filter((task) => inB.has(task));
  const matches: Omit<MatchedModels, 'comparison'>[] =
    modelsA.length === 1 && modelsB.length === 1
      ? [{ model_a: modelsA[0]!, model_b: modelsB[0]!, matched_by: modelsA[0] === modelsB[0] ? 'name' : 'only' }]
      : modelsA.filter((model) => modelsB.includes(model)).map((model) => ({ model_a: model, model_b: model, matched_by: 'name' }));
  const columns = matches.flatMap((match) => [label('A', match.model_a), label('B', match.model_b)]);
  const matrix = modelTaskMatrix([...relabel(a.rows, 'A'), ...relabel(b.rows, 'B')], columns, common);
  const side = (collected: typeof a, out: string, models: string[]): ComparedBatch => ({
    out: resolve(out),
    models,
    tasks: collected.definition.task_ids.length,
    grader: collected.grader,
    grader_choice: collected.grader_choice,
  });
  return {
    a: side(a, outA, modelsA),
    b: side(b, outB, modelsB),
    common_tasks: common,
    only_a: a.definition.task_ids.filter((task) => !common.includes(task)),
    only_b: b.definition.task_ids.filter((task) => !common.includes(task)),
    pairs: pairsWithHolm(
      matches.map((match) => {
        const [columnA, columnB] = [label('A', match.model_a), label('B', match.model_b)];
        return { ...match, comparison: comparePaired(columnA, columnB, modelValues(matrix, columnA), modelValues(matrix, columnB)) };
      }),
    ),
    unmatched_a: modelsA.filter((model) => !matches.some((match) => match.model_a === model)),
    unmatched_b: modelsB.filter((model) => !matches.some((match) => match.model_b === model)),
    matrix,
  };
}
