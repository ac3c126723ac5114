import { describe, expect, it } from 'vitest';
import { meanInterval, median, wilsonInterval } from './statistics.js';

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
