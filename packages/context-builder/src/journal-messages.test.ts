import { describe, expect, it } from 'vitest';
import { applyEvent, conversationOf, emptyRunState, foldEvents, MISSING_RESULT, type JournalEvent } from '@delta/journal';
import { expectStrictConversation, iterations, messagesOf, result, thought, user } from '../test/journal-events.js';
import { journalToMessages } from './journal-messages.js';
import { conversationMessages, windowConversation } from './journal-messages.js';

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
    expect(messagesOf(events)).toEqual([
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
    expect(messagesOf(events)).toEqual([
      { role: 'user', content: 'task' },
      { role: 'assistant', content: null, tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
    ]);
  });

  it('splits into the task and whole turns, each turn with the user messages that led into it', () => {
    const events = [user('task'), thought(1, 'one', ['a']), result(1, 'a', 'A'), user('more'), thought(2, 'two'), user('again')];
    const conversation = conversationOf(foldEvents(events));
    const turns = conversation.turns.map((turn) => ({
      iteration: turn.iteration,
      messages: conversation.messages.slice(turn.start, turn.end),
    }));
    expect(conversation.hasTask && conversation.messages[0]).toEqual({ role: 'user', content: 'task' });
    expect(turns).toEqual([
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
    ]);
  });
});

describe('journalToMessages: max_iterations windows', () => {
  it('keeps exactly the last iteration and the task with max_iterations: 1', () => {
    const events = iterations(4);
    expect(messagesOf(events, { maxIterations: 1 })).toEqual([
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'i4', tool_calls: [call('c4')] },
      { role: 'tool', tool_call_id: 'c4', content: 'r4' },
    ]);
  });

  it('keeps a user message the model has not answered yet, beyond the window', () => {
    const events = [...iterations(3), user('and now?')];
    expect(messagesOf(events, { maxIterations: 1 })).toEqual([
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
      const messages = messagesOf(events, { maxIterations: window });
      expect(messages[0]).toEqual({ role: 'user', content: 'task' });
      expectStrictConversation(messages);
      const assistants = messages.filter((message) => message.role === 'assistant');
      expect(assistants.map((message) => message.content)).toEqual(
        Array.from({ length: Math.min(window, 6) }, (_, position) => `i${6 - Math.min(window, 6) + 1 + position}`),
      );
    }
  });
});

describe('journalToMessages: a run that grows', () => {
  it('stays a strict conversation, windowed or not, through 3,000 random events folded one by one', () => {
    // @delta/testkit's seededRandom would make a dependency cycle (testkit uses this package): a plain LCG.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let state = applyEvent(emptyRunState(), user('task'));
    const events: JournalEvent[] = [...state.events];
    let iteration = 0;
    let pending: string[] = [];
    for (let step = 0; step < 3000; step += 1) {
      const roll = random();
      let event: JournalEvent;
      if (roll < 0.3 && pending.length > 0) {
        const index = Math.floor(random() * pending.length);
        event = result(iteration, pending[index]!, `result ${step} ✓`);
        pending.splice(index, 1);
      } else if (roll < 0.55) {
        iteration += 1;
        const calls = Array.from({ length: Math.floor(random() * 4) }, (_, index) => `c${step}_${index}`);
        event = thought(iteration, random() < 0.5 ? null : `thinking ${step}`, calls);
        pending = [...calls];
      } else if (roll < 0.7) {
        event = user(`later message ${step}`);
      } else if (roll < 0.8) {
        event = { seq: 100_000 + step, timestamp: 'T', type: 'SYSTEM_MESSAGE', level: 'INFO', content: 'noise' };
      } else {
        // A result for a call of an earlier thought, or for no call at all: ignored either way.
        event = result(iteration, `stray${step}`, 'stray');
      }
      state = applyEvent(state, event);
      events.push(event);
      if (step % 3 === 0 || step > 2950) {
        const messages = journalToMessages(state);
        expectStrictConversation(messages);
        // The turns cover the same messages as the flat list, and a window is a strict conversation too.
        expect(conversationMessages(conversationOf(state)).messages).toEqual(messages);
        expectStrictConversation(journalToMessages(state, { maxIterations: 3 }));
        if (step % 150 === 0) expect(messages).toEqual(messagesOf(events));
      }
    }
    expect(journalToMessages(state, { maxIterations: 3 })).toEqual(messagesOf(events, { maxIterations: 3 }));
  });

  it('gives placeholders for missing results without keeping them once the results arrive', () => {
    const events: JournalEvent[] = [user('task'), thought(1, null, ['a', 'b']), result(1, 'a', 'A')];
    const waiting = foldEvents(events);
    expect(journalToMessages(waiting).slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: MISSING_RESULT },
    ]);
    const answered = foldEvents([user('while waiting'), result(1, 'b', 'B')], waiting);
    expect(journalToMessages(answered).slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'user', content: 'while waiting' },
    ]);
    // The earlier snapshot still says what it said.
    expect(journalToMessages(waiting).at(-1)).toEqual({ role: 'tool', tool_call_id: 'b', content: MISSING_RESULT });
    expect(windowConversation(conversationOf(answered), undefined)).toEqual(conversationOf(answered));
  });
});
