import { binomialTwoSided, meanInterval } from './statistics.js';

/**
 * Two conditions (two models, or one model in two batches) compared on the tasks both have a value for.
 * The task is the unit: each side's value on a task is its pass rate or mean score over its repeats.
 */
export interface PairedComparison {
  a: string;
  b: string;
  /** Tasks both have a value for (a task counts once, whatever its repeats). */
  tasks: number;
  mean_a: number | null;
  mean_b: number | null;
  /**
   * mean_a - mean_b, with the 95% Student-t interval of the per-task differences (null for fewer than 2 tasks),
   * kept within [-1, 1] when both sides are rates or scores between 0 and 1.
   */
  difference: number | null;
  low: number | null;
  high: number | null;
  /**
   * `mcnemar_exact` when every per-task value is 0 or 1 (one run each, pass/fail): the exact binomial test on the
   * discordant tasks. `sign_test` otherwise: the exact binomial test on the signs of the per-task differences.
   */
  test: 'mcnemar_exact' | 'sign_test';
  /** Tasks where a did better, where b did, and where they tied (ties do not count in the test). */
  a_better: number;
  b_better: number;
  ties: number;
  /** Two-sided; null on 0 common tasks, where there is nothing to test. */
  p_value: number | null;
  /**
   * The p-value adjusted by Holm's method for every comparison of the report that has one, when the report
   * makes more than one (more than two columns); null otherwise.
   */
  p_holm: number | null;
}

export function comparePaired(
  a: string,
  b: string,
  valuesA: ReadonlyMap<string, number>,
  valuesB: ReadonlyMap<string, number>,
): PairedComparison {
  const pairs = [...valuesA].flatMap(([task, value]) => {
    const other = valuesB.get(task);
    return other === undefined ? [] : [[value, other] as const];
  });
  const differences = pairs.map(([x, y]) => x - y);
  const aBetter = differences.filter((difference) => difference > 0).length;
  const bBetter = differences.filter((difference) => difference < 0).length;
  const binary = pairs.every(([x, y]) => (x === 0 || x === 1) && (y === 0 || y === 1));
  const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length);
  const interval = pairs.length >= 2 ? meanInterval(differences) : null;
  // Two rates differ by at most 1 either way: an interval past that says nothing more.
  const rates = pairs.every(([x, y]) => x >= 0 && x <= 1 && y >= 0 && y <= 1);
  const bound = (value: number) => (rates ? Math.min(1, Math.max(-1, value)) : value);
  return {
    a,
    b,
    tasks: pairs.length,
    mean_a: mean(pairs.map(([x]) => x)),
    mean_b: mean(pairs.map(([, y]) => y)),
    difference: mean(differences),
    low: interval === null ? null : bound(interval.low),
    high: interval === null ? null : bound(interval.high),
    test: binary ? 'mcnemar_exact' : 'sign_test',
    a_better: aBetter,
    b_better: bBetter,
    ties: pairs.length - aBetter - bBetter,
    p_value: pairs.length === 0 ? null : binomialTwoSided(aBetter, aBetter + bBetter),
    p_holm: null,
  };
}

/**
 * Comparisons with Holm's adjusted p-values, when there is more than one to adjust for: the k-th smallest of m
 * p-values is multiplied by m - k + 1, kept at most 1 and at least the adjusted value before it (step-down).
 * A comparison with no p-value (0 common tasks) is not a test and is not counted.
 */
export function adjustHolm<Comparison extends PairedComparison>(comparisons: readonly Comparison[]): Comparison[] {
  const tested = comparisons
    .map((comparison, index) => ({ p: comparison.p_value, index }))
    .filter((entry): entry is { p: number; index: number } => entry.p !== null)
    .sort((x, y) => x.p - y.p || x.index - y.index);
  const adjusted = new Map<number, number>();
  let floor = 0;
  for (const [rank, { p, index }] of tested.entries()) {
    floor = Math.max(floor, Math.min(1, (tested.length - rank) * p));
    adjusted.set(index, floor);
  }
  return comparisons.map((comparison, index) => ({
    ...comparison,
    p_holm: tested.length > 1 ? (adjusted.get(index) ?? null) : null,
  }));
}
