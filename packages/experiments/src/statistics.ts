/** Small statistics for reports: medians and 95% confidence intervals. */

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface Interval {
  mean: number;
  low: number;
  high: number;
}

const Z95 = 1.959964;

/**
 * A pass rate with its 95% Wilson score interval: unlike the normal approximation it stays inside [0, 1]
 * and means something for a handful of runs or a rate of 0 or 1.
 */
export function wilsonInterval(passes: number, runs: number): Interval | null {
  if (runs === 0) return null;
  const rate = passes / runs;
  const z2 = Z95 * Z95;
  const centre = (rate + z2 / (2 * runs)) / (1 + z2 / runs);
  const half = (Z95 * Math.sqrt((rate * (1 - rate)) / runs + z2 / (4 * runs * runs))) / (1 + z2 / runs);
  return { mean: rate, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

// Student's t, two-sided 95%, for 1 to 30 degrees of freedom; 1.96 beyond.
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** A mean score with its 95% Student-t interval (the interval is the mean alone for one value). */
export function meanInterval(values: readonly number[]): Interval | null {
  if (values.length === 0) return null;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  if (values.length === 1) return { mean, low: mean, high: mean };
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  const t = T95[values.length - 2] ?? Z95;
  const half = t * Math.sqrt(variance / values.length);
  return { mean, low: mean - half, high: mean + half };
}

/**
 * The exact two-sided binomial test of `k` successes in `n` trials at p = 1/2: twice the smaller tail,
 * at most 1. On the discordant pairs of two paired pass/fail series it is McNemar's exact test; on the
 * signs of paired differences it is the sign test. 1 when n is 0 (nothing tells the two apart).
 */
export function binomialTwoSided(k: number, n: number): number {
  if (n === 0) return 1;
  const smaller = Math.min(k, n - k);
  if (n <= 1000) {
    // Exact in integers: 2 * sum C(n, i) / 2^n, rounded once at the end (22 / 1024 is 0.021484375 exactly).
    let choose = 1n;
    let tail = 0n;
    for (let i = 0; i <= smaller; i += 1) {
      if (i > 0) choose = (choose * BigInt(n - i + 1)) / BigInt(i);
      tail += choose;
    }
    return Math.min(1, Number(2n * tail) / 2 ** n);
  }
  // Beyond, log C(n, i) term by term, so that nothing overflows.
  let logChoose = 0;
  let tail = 0;
  for (let i = 0; i <= smaller; i += 1) {
    if (i > 0) logChoose += Math.log((n - i + 1) / i);
    tail += Math.exp(logChoose - n * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}
