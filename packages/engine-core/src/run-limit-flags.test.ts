import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '@delta/errors';
import { parseDurationFlag, runLimitOptions } from './run-limit-flags.js';

describe('runLimitOptions', () => {
  it('gives the engine options of the limits given, and nothing for those not given', () => {
    expect(runLimitOptions({})).toEqual({});
    expect(runLimitOptions({ maxIterations: '30', retries: '0', maxCost: '0.5', timeout: '2m' })).toEqual({
      maxIterations: 30,
      maxRetries: 0,
      maxCost: 0.5,
      timeoutMs: 120_000,
    });
  });

  it('refuses a bad value with a USAGE error that names the flag and gives an example', () => {
    for (const [flags, message] of [
      [{ maxIterations: '0' }, '--max-iterations must be a whole number of at least 1, got "0".'],
      [{ retries: '11' }, '--retries must be a whole number from 0 to 10, got "11".'],
      [{ maxCost: '-1' }, '--max-cost must be a positive amount, got "-1".'],
      [{ timeout: '5 minutes' }, '--timeout must be a duration such as 90s, 5m, 1h or 7d, got "5 minutes".'],
    ] as const) {
      const error = (() => {
        try {
          runLimitOptions(flags);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({ code: 'USAGE', message, hint: expect.stringContaining('For example:') });
    }
  });
});

describe('parseDurationFlag', () => {
  it('reads each unit, and a number alone as seconds', () => {
    expect(parseDurationFlag('--unused-for', '1500ms')).toBe(1500);
    expect(parseDurationFlag('--unused-for', 90)).toBe(90_000);
    expect(parseDurationFlag('--unused-for', '1h')).toBe(3_600_000);
    expect(parseDurationFlag('--unused-for', '7d')).toBe(604_800_000);
    expect(() => parseDurationFlag('--unused-for', '0s')).toThrow('--unused-for must be a duration');
  });
});
