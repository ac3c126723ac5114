import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '@delta/journal';
import { expectStrictConversation, iterations, result, thought, user } from '../test/journal-events.js';
import { journalToConversation, journalToMessages, MISSING_RESULT } from './index.js';
import { conversationMessages } from './journal-messages.js';

const call = (id: string, name = 'tool') => ({ id, type: 'function', function: { name, arguments: `{"id":"${id}"}` } });
const seq = 1000;

describe('journalToMessages: the conversation', () => {
  it("gives a human's answer to ask_human as that call's tool message", () => {
    const events: JournalEvent[] = [
      user('deploy?'),
      thought(1, 'I need to ask.', ['h1'], 'ask_human'),
      {
        seq: seq + 1,
        timestamp: 'T',
        type: 'ACTION_REQUEST',
        iteration: 1,
        action_id: 'h1',
        tool_name: 'ask_human',
        tool_args: { prompt: 'OK?' },
      },
      { seq: seq + 2, timestamp: 'T', type: 'HUMAN_INPUT_REQUEST', iteration: 1, action_id: 'h1', prompt: 'OK?' },
      { seq: seq + 3, timestamp: 'T', type: 'HUMAN_INPUT_RECEIVED', iteration: 1, action_id: 'h1', response: 'yes' },
      result(1, 'h1', 'yes', 'ask_human'),
      thought(2, 'Deploying.'),
    ];
    expect(journalToMessages(events)).toEqual([
      { role: 'user', content: 'deploy?' },
      { role: 'assistant', content: 'I need to ask.', tool_calls: [call('h1', 'ask_human')] },
      { role: 'tool', tool_call_id: 'h1', content: 'yes' },
      { role: 'assistant', content: 'Deploying.' },
    ]);
  });

  it('ignores events that are not conversation, and a result for a call the last assistant did not make', () => {
    const events: JournalEvent[] = [
      { seq: seq + 10, timestamp: 'T', type: 'SYSTEM_MESSAGE', level: 'INFO', content: 'resumed' },
      user('task'),
      thought(1, null, ['a']),
      result(1, 'zzz', 'stray'),
      result(1, 'a', 'A'),
    ];
    expect(journalToMessages(events)).toEqual([
      { role: 'user', content: 'task' },
      { role: 'assistant', content: null, tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
    ]);
  });

  it('splits into the task and whole turns, each turn with the user messages that led into it', () => {
    const events = [user('task'), thought(1, 'one', ['a']), result(1, 'a', 'A'), user('more'), thought(2, 'two'), user('again')];
    expect(journalToConversation(events)).toEqual({
      task: { role: 'user', content: 'task' },
      turns: [
        {
          iteration: 1,
          messages: [
            { role: 'assistant', content: 'one', tool_calls: [call('a')] },
            { role: 'tool', tool_call_id: 'a', content: 'A' },
          ],
        },
        {
          iteration: 2,
          messages: [
            { role: 'user', content: 'more' },
            { role: 'assistant', content: 'two' },
          ],
        },
        { iteration: undefined, messages: [{ role: 'user', content: 'again' }] },
      ],
    });
  });
});

describe('journalToMessages: max_iterations windows', () => {
  it('keeps exactly the last iteration and the task with max_iterations: 1', () => {
    const events = iterations(4);
    expect(journalToMessages(events, { maxIterations: 1 })).toEqual([
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'i4', tool_calls: [call('c4')] },
      { role: 'tool', tool_call_id: 'c4', content: 'r4' },
    ]);
  });

  it('keeps a user message the model has not answered yet, beyond the window', () => {
    const events = [...iterations(3), user('and now?')];
    expect(journalToMessages(events, { maxIterations: 1 })).toEqual([
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'i3', tool_calls: [call('c3')] },
      { role: 'tool', tool_call_id: 'c3', content: 'r3' },
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('never orphans a tool result and always keeps the task, for every window size', () => {
    const events: JournalEvent[] = [user('task')];
    for (let iteration = 1; iteration <= 6; iteration += 1) {
      const ids = Array.from({ length: iteration % 3 }, (_, position) => `c${iteration}_${position}`);
      events.push(thought(iteration, `i${iteration}`, ids));
      if (iteration === 3) events.push(user('mid-run'));
      for (const id of [...ids].reverse()) events.push(result(iteration, id, `r-${id}`));
    }
    for (let window = 1; window <= 7; window += 1) {
      const messages = journalToMessages(events, { maxIterations: window });
      expect(messages[0]).toEqual({ role: 'user', content: 'task' });
      expectStrictConversation(messages);
      const assistants = messages.filter((message) => message.role === 'assistant');
      expect(assistants.map((message) => message.content)).toEqual(
        Array.from({ length: Math.min(window, 6) }, (_, position) => `i${6 - Math.min(window, 6) + 1 + position}`),
      );
    }
  });
});

describe('journalToMessages: the incremental rebuild', () => {
  /** A fresh array of the same events: never seen before, so rebuilt from the start. */
  const fresh = (events: readonly JournalEvent[]) => journalToMessages([...events]);

  it('equals a rebuild from scratch after every append of 3,000 random events, and when windowed', () => {
    let state = 7;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    // One array that only grows, as the engine's JournalReader returns it.
    const events: JournalEvent[] = [user('task')];
    let iteration = 0;
    let pending: string[] = [];
    for (let step = 0; step < 3000; step += 1) {
      const roll = random();
      if (roll < 0.3 && pending.length > 0) {
        const index = Math.floor(random() * pending.length);
        events.push(result(iteration, pending[index]!, `result ${step} ✓`));
        pending.splice(index, 1);
      } else if (roll < 0.55) {
        iteration += 1;
        const calls = Array.from({ length: Math.floor(random() * 4) }, (_, index) => `c${step}_${index}`);
        events.push(thought(iteration, random() < 0.5 ? null : `thinking ${step}`, calls));
        pending = [...calls];
      } else if (roll < 0.7) {
        events.push(user(`later message ${step}`));
      } else if (roll < 0.8) {
        events.push({ seq: 100_000 + step, timestamp: 'T', type: 'SYSTEM_MESSAGE', level: 'INFO', content: 'noise' });
      } else {
        // A result for a call of an earlier thought, or for no call at all: ignored either way.
        events.push(result(iteration, `stray${step}`, 'stray'));
      }
      if (step % 3 === 0 || step > 2950) {
        const messages = journalToMessages(events);
        expect(messages).toEqual(fresh(events));
        // The flat path and the turn-by-turn one agree (checked less often: each check rebuilds it all).
        if (step % 60 === 0 || step > 2990) expect(messages).toEqual(conversationMessages(journalToConversation([...events])));
        expectStrictConversation(messages);
        expect(journalToMessages(events, { maxIterations: 3 })).toEqual(journalToMessages([...events], { maxIterations: 3 }));
      }
    }
    // CPU-bound: on a loaded 2-core machine it has taken over a minute.
  }, 180_000);

  it('starts again when the array no longer holds the events it was rebuilt from', () => {
    const events = iterations(5);
    expect(journalToMessages(events)).toEqual(fresh(events));
    // The last event read is replaced, then the array is cut shorter: both are noticed.
    events[events.length - 1] = result(5, 'c5', 'replaced');
    expect(journalToMessages(events)).toEqual(fresh(events));
    expect(journalToMessages(events).at(-1)).toMatchObject({ content: 'replaced' });
    events.splice(3);
    expect(journalToMessages(events)).toEqual(fresh(events));
    events[0] = user('another task');
    expect(journalToMessages(events)).toEqual(fresh(events));
    expect(journalToMessages(events)[0]).toEqual({ role: 'user', content: 'another task' });
  });

  it('gives placeholders for missing results without keeping them once the results arrive', () => {
    const events: JournalEvent[] = [user('task'), thought(1, null, ['a', 'b']), result(1, 'a', 'A')];
    expect(journalToMessages(events).slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: MISSING_RESULT },
    ]);
    events.push(user('while waiting'), result(1, 'b', 'B'));
    expect(journalToMessages(events)).toEqual(fresh(events));
    expect(journalToMessages(events).slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'user', content: 'while waiting' },
    ]);
  });
});
