import { describe, expect, it } from 'vitest';
import { comparePaired } from './paired-comparison.js';
import { binomialTwoSided, meanInterval, median, wilsonInterval } from './statistics.js';

describe('statistics', () => {
  it('gives the median of odd and even counts', () => {
    expect(median([])).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('gives the Wilson 95% interval of a pass rate', () => {
    // 8 of 10: the textbook interval is 0.490 to 0.943.
    const interval = wilsonInterval(8, 10)!;
    expect(interval.mean).toBe(0.8);
    expect(interval.low).toBeCloseTo(0.4902, 3);
    expect(interval.high).toBeCloseTo(0.9433, 3);
    expect(wilsonInterval(0, 5)!.low).toBe(0);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it('gives the Student t 95% interval of a mean score', () => {
    // Mean 2, sd 1, n 4: 2 +- 3.182 * 0.5.
    const interval = meanInterval([1, 2, 2, 3])!;
    expect(interval.mean).toBe(2);
    const sd = Math.sqrt(2 / 3);
    expect(interval.high - interval.mean).toBeCloseTo((3.182 * sd) / 2, 6);
    expect(meanInterval([0.5])).toEqual({ mean: 0.5, low: 0.5, high: 0.5 });
  });
});

describe('paired tests', () => {
  it("gives the exact two-sided binomial p (McNemar's exact test on discordant pairs)", () => {
    expect(binomialTwoSided(1, 10)).toBe(0.021484375);
    expect(binomialTwoSided(9, 10)).toBe(0.021484375);
    expect(binomialTwoSided(0, 7)).toBe(0.015625);
    expect(binomialTwoSided(5, 10)).toBe(1);
    expect(binomialTwoSided(0, 0)).toBe(1);
    // Large n falls back to logarithms: 0 of 2000 is far below anything a double holds apart from 0.
    expect(binomialTwoSided(1000, 2000)).toBeCloseTo(1, 6);
    expect(binomialTwoSided(900, 2000)).toBeLessThan(1e-5);
  });

  it('compares scores task by task with the sign test, repeats averaged per task first', () => {
    // Task means over repeats: a = [0.5, 1, 0.25, 0.75], b = [0, 1, 0.5, 0.25]: a better on t1 and t4, b on t3, t2 a tie.
    const a = new Map([
      ['t1', 0.5],
      ['t2', 1],
      ['t3', 0.25],
      ['t4', 0.75],
    ]);
    const b = new Map([
      ['t1', 0],
      ['t2', 1],
      ['t3', 0.5],
      ['t4', 0.25],
      ['t5', 1],
    ]);
    const comparison = comparePaired('a', 'b', a, b);
    expect(comparison).toMatchObject({ tasks: 4, test: 'sign_test', a_better: 2, b_better: 1, ties: 1, mean_a: 0.625, mean_b: 0.4375 });
    expect(comparison.difference).toBe(0.1875);
    // 2 of 3 signs: p = 2 * (1 + 3) / 8 = 1 at most.
    expect(comparison.p_value).toBe(1);
    // Differences 0.5, 0, -0.25, 0.5: sd of the differences, t(3) = 3.182.
    const d = [0.5, 0, -0.25, 0.5];
    const sd = Math.sqrt(d.reduce((sum, x) => sum + (x - 0.1875) ** 2, 0) / 3);
    expect(comparison.high).toBeCloseTo(0.1875 + (3.182 * sd) / 2, 9);
  });
});
