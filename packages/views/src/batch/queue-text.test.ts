import { describe, expect, it } from 'vitest';
import { queueEndText, queueProgressLine } from './queue-text.js';

describe('delta batch --queue --wait', () => {
  it("counts jobs that are not the batch's too: never more ended than jobs", () => {
    expect(queueProgressLine({ waiting: 1, active: 2, delayed: 0, completed: 1, failed: 0 }, 4)).toBe(
      '1/4 ended · 2 running · 1 waiting · 0 to retry · 0 failed in the queue',
    );
    expect(queueProgressLine({ waiting: 0, active: 0, delayed: 0, completed: 4, failed: 4 }, 4)).toMatch(/^8\/8 ended /);
  });

  it('lists failed and refused jobs apart on stderr, and the runs by status on stdout', () => {
    const counts = { COMPLETED: 2, FAILED: 1, INTERRUPTED: 0, WAITING_FOR_INPUT: 0, RUNNING: 0, none: 1 };
    const text = queueEndText({ out: 'results', queue: 'q1', runs: 4 }, counts, [
      { id: '7', reason: 'boom', attempts: 3, refused: false },
      { id: '9', reason: 'not a run of this batch', attempts: 1, refused: true },
    ]);
    expect(text.stderr.split('\n')).toEqual([
      'FAILED JOB 7 after 3 attempts: boom',
      'REFUSED JOB 9: not a run of this batch',
      '1 job in queue q1 did not come from this batch and were refused: someone else can write to this Redis (give it a password: docs/scale-out.md).',
      '',
    ]);
    expect(text.stdout).toBe(
      '4 runs: 2 completed, 1 failed, 0 interrupted, 0 waiting for input, 1 not finished (1 jobs failed in the queue, 1 refused)\nReport: delta report results\n',
    );
    expect(queueEndText({ out: 'o', queue: 'q', runs: 1 }, { ...counts, FAILED: 0 }, []).stderr).toBe('');
  });
});
