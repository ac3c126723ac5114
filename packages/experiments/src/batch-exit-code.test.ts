import { describe, expect, it } from 'vitest';
import { batchExitCode, oracleExitCode, queuedBatchExitCode } from './batch-exit-code.js';

const none = { stopped: false, failed: 0, limited: 0, errors: 0, waiting: 0, interrupted: 0 };
const noRuns = { COMPLETED: 0, FAILED: 0, INTERRUPTED: 0, WAITING_FOR_INPUT: 0, RUNNING: 0, none: 0 };

describe('batchExitCode', () => {
  it('is 0 when every run completed, 130 when stopped, whatever else happened', () => {
    expect(batchExitCode(none)).toBe(0);
    expect(batchExitCode({ ...none, stopped: true, failed: 2, waiting: 1 })).toBe(130);
  });

  it('is 1 for failed, limited or unexecuted runs, before 101 for waiting ones and 3 for interrupted ones', () => {
    expect(batchExitCode({ ...none, failed: 1, waiting: 1, interrupted: 1 })).toBe(1);
    expect(batchExitCode({ ...none, limited: 1 })).toBe(1);
    expect(batchExitCode({ ...none, errors: 1 })).toBe(1);
    expect(batchExitCode({ ...none, waiting: 1, interrupted: 1 })).toBe(101);
    expect(batchExitCode({ ...none, interrupted: 1 })).toBe(3);
  });
});

describe('oracleExitCode', () => {
  it('is 130 when stopped, 1 when an oracle failed or did not run, else 0', () => {
    expect(oracleExitCode({ stopped: true, failed: 0, notRun: 0 })).toBe(130);
    expect(oracleExitCode({ stopped: false, failed: 1, notRun: 0 })).toBe(1);
    expect(oracleExitCode({ stopped: false, failed: 0, notRun: 1 })).toBe(1);
    expect(oracleExitCode({ stopped: false, failed: 0, notRun: 0 })).toBe(0);
  });
});

describe('queuedBatchExitCode', () => {
  it('is 1 for failed runs or jobs and for runs that did not end, then 101 for waiting, 3 for interrupted', () => {
    expect(queuedBatchExitCode({ ...noRuns, COMPLETED: 2 }, 0)).toBe(0);
    expect(queuedBatchExitCode({ ...noRuns, COMPLETED: 2 }, 1)).toBe(1);
    expect(queuedBatchExitCode({ ...noRuns, FAILED: 1, WAITING_FOR_INPUT: 1 }, 0)).toBe(1);
    expect(queuedBatchExitCode({ ...noRuns, RUNNING: 1 }, 0)).toBe(1);
    expect(queuedBatchExitCode({ ...noRuns, none: 1 }, 0)).toBe(1);
    expect(queuedBatchExitCode({ ...noRuns, WAITING_FOR_INPUT: 1, INTERRUPTED: 1 }, 0)).toBe(101);
    expect(queuedBatchExitCode({ ...noRuns, INTERRUPTED: 1 }, 0)).toBe(3);
  });
});
