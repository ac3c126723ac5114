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

  it('shows the control characters of what a model or a tool wrote, never sends them to the terminal', () => {
    const format = createTranscriptFormatter();
    const at = { seq: 3, timestamp: '2026-11-23T10:00:00.000Z', iteration: 1 };
    const thought = format({
      ...at,
      type: 'THOUGHT',
      content: 'done \u001b]52;c;cm0K\u0007 \u001b[2J',
      tool_calls: [],
    } as unknown as JournalEvent);
    const result = format({
      ...at,
      type: 'ACTION_RESULT',
      action_id: 'call_1',
      tool_name: 'sh',
      status: 'SUCCESS',
      exit_code: 0,
      observation_content: 'ok\u001b[1;1HALL TESTS PASSED\r\nline two',
    } as unknown as JournalEvent);
    for (const text of [thought, result]) expect(text).not.toMatch(/[\u001b\u0007\r]/);
    expect(thought).toContain('done \\u001b]52;c;cm0K\\u0007 \\u001b[2J');
    expect(result).toContain('ok\\u001b[1;1HALL TESTS PASSED\\u000d');
    expect(result).toContain('line two');
  });

  it('hides a sensitive answer with a control character in it where the transcript shows it written out', () => {
    const format = createTranscriptFormatter();
    const at = { seq: 3, timestamp: '2026-11-23T10:00:00.000Z', iteration: 1 };
    format({
      ...at,
      type: 'HUMAN_INPUT_REQUEST',
      action_id: 'ask_1',
      prompt: 'Password?',
      input_type: 'password',
    } as unknown as JournalEvent);
    const answer = format({
      ...at,
      type: 'HUMAN_INPUT_RECEIVED',
      action_id: 'ask_1',
      response: 'hunter2\u001bsecret',
    } as unknown as JournalEvent);
    const echoed = format({
      ...at,
      type: 'ACTION_RESULT',
      action_id: 'call_1',
      tool_name: 'sh',
      status: 'SUCCESS',
      exit_code: 0,
      observation_content: 'got hunter2\u001bsecret',
    } as unknown as JournalEvent);
    for (const text of [answer, echoed]) expect(text).not.toContain('hunter2');
  });
});
