import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '@delta/journal';
import { countIterations } from './stop-conditions.js';

let seq = 0;
const thought = (iteration: number): JournalEvent => ({
  seq: ++seq,
  timestamp: 'T',
  type: 'THOUGHT',
  iteration,
  content: null,
  tool_calls: [],
  llm_invocation_ref: 'x',
  finish_reason: 'stop',
});
const user = (content: string): JournalEvent => ({ seq: ++seq, timestamp: 'T', type: 'USER_MESSAGE', content });
const fresh = (events: readonly JournalEvent[]) => [...events].filter((event) => event.type === 'THOUGHT').length;

describe('countIterations', () => {
  it('counts THOUGHTs as an array grows, and starts again when it is cut, or its first or last event replaced', () => {
    const events: JournalEvent[] = [user('task')];
    for (let iteration = 1; iteration <= 50; iteration += 1) {
      events.push(thought(iteration), user(`more ${iteration}`));
      expect(countIterations(events)).toBe(iteration);
    }
    events.splice(10);
    expect(countIterations(events)).toBe(fresh(events));
    events[events.length - 1] = thought(99);
    expect(countIterations(events)).toBe(fresh(events));
    events[0] = thought(100);
    expect(countIterations(events)).toBe(fresh(events));
    expect(countIterations([...events, thought(101)])).toBe(fresh(events) + 1);
  });
});
