import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '@delta/journal';
import { countOf } from '../inspect/format-numbers.js';
import { createTranscriptFormatter } from './format-event.js';

const end = (final_iteration: number): JournalEvent =>
  ({ seq: 9, timestamp: '2026-11-23T10:00:00.000Z', type: 'ENGINE_END', status: 'COMPLETED', final_iteration }) as JournalEvent;

describe('delta log lines', () => {
  it('counts one iteration in the singular and others in the plural', () => {
    const format = createTranscriptFormatter();
    expect(format(end(1))).toContain('COMPLETED after 1 iteration');
    expect(format(end(1))).not.toContain('iterations');
    expect(format(end(0))).toContain('COMPLETED after 0 iterations');
    expect(format(end(1200))).toContain('COMPLETED after 1,200 iterations');
    expect(countOf(1, 'token')).toBe('1 token');
  });
});
