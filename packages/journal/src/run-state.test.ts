import { describe, expect, it } from 'vitest';
import { applyEvent, conversationOf, emptyRunState, foldEvents, MISSING_RESULT, type JournalEvent } from './index.js';
import { AppendList } from './append-list.js';

let seq = 0;
const timestamp = '2026-01-01T00:00:00.000Z';
const user = (content: string): JournalEvent => ({ seq: ++seq, timestamp, type: 'USER_MESSAGE', content });
const thought = (iteration: number, content: string | null, calls: string[] = [], name = 'tool'): JournalEvent => ({
  seq: ++seq,
  timestamp,
  type: 'THOUGHT',
  iteration,
  content,
  llm_invocation_ref: `inv${iteration}`,
  tool_calls: calls.map((id) => ({ id, name, arguments: '{}' })),
});
const request = (iteration: number, id: string): JournalEvent => ({
  seq: ++seq,
  timestamp,
  type: 'ACTION_REQUEST',
  iteration,
  action_id: id,
  tool_name: 'tool',
  tool_args: {},
});
const result = (iteration: number, id: string, text: string): JournalEvent => ({
  seq: ++seq,
  timestamp,
  type: 'ACTION_RESULT',
  iteration,
  action_id: id,
  tool_name: 'tool',
  status: 'SUCCESS',
  observation_content: text,
  exit_code: 0,
});

describe('run state', () => {
  it('counts iterations and hook runs, and knows the final answer until something follows it', () => {
    const hook = (): JournalEvent => ({
      seq: ++seq,
      timestamp,
      type: 'HOOK_EXECUTION_AUDIT',
      hook_name: 'x',
      status: 'SUCCESS',
      io_path_ref: 'x',
    });
    let state = foldEvents([user('task'), thought(1, 'one', ['a']), result(1, 'a', 'A'), hook()]);
    expect(state).toMatchObject({ version: 4, iterations: 1, hookRuns: 1, finalAnswer: undefined, lastSeq: seq });
    state = foldEvents([thought(2, 'done'), hook()], state);
    expect(state).toMatchObject({ iterations: 2, hookRuns: 2, finalAnswer: 'done' });
    expect(applyEvent(state, user('more')).finalAnswer).toBeUndefined();
    expect(foldEvents([thought(3, null)], state).finalAnswer).toBe('');
  });

  it("follows each pending call of the last THOUGHT: started, waiting for a human, the human's answer", () => {
    let state = foldEvents([user('task'), thought(1, null, ['a', 'h', 'b'])]);
    expect(state.pendingCalls.map((item) => [item.call.id, item.started])).toEqual([
      ['a', false],
      ['h', false],
      ['b', false],
    ]);
    state = foldEvents([request(1, 'a'), result(1, 'a', 'A'), request(1, 'h')], state);
    const asked: JournalEvent = { seq: ++seq, timestamp, type: 'HUMAN_INPUT_REQUEST', iteration: 1, action_id: 'h', prompt: 'OK?' };
    state = applyEvent(state, asked);
    expect(state.pendingCalls).toMatchObject([
      { call: { id: 'h' }, started: true, waitingForHuman: asked, received: undefined },
      { call: { id: 'b' }, started: false, waitingForHuman: undefined },
    ]);
    state = applyEvent(state, { seq: ++seq, timestamp, type: 'HUMAN_INPUT_RECEIVED', iteration: 1, action_id: 'h', response: 'yes' });
    expect(state.pendingCalls[0]).toMatchObject({ waitingForHuman: undefined, received: 'yes' });
    state = foldEvents([result(1, 'h', 'yes'), result(1, 'zzz', 'stray'), result(1, 'b', 'B')], state);
    expect(state.pendingCalls).toEqual([]);
    // A new THOUGHT replaces what was pending.
    expect(foldEvents([thought(2, null, ['c'])], foldEvents([thought(1, null, ['x'])])).pendingCalls.map((item) => item.call.id)).toEqual([
      'c',
    ]);
  });

  it('knows how the latest engine invocation ended', () => {
    const start = (): JournalEvent => ({ seq: ++seq, timestamp, type: 'ENGINE_START', run_id: 'r', agent_home: 'a', work_dir: 'w' });
    const end = (status: 'COMPLETED' | 'WAITING_FOR_INPUT'): JournalEvent => ({
      seq: ++seq,
      timestamp,
      type: 'ENGINE_END',
      run_id: 'r',
      status,
      final_iteration: 1,
    });
    let state = foldEvents([start(), user('task'), end('WAITING_FOR_INPUT'), user('after')]);
    expect(state.lastEnd?.status).toBe('WAITING_FOR_INPUT');
    state = applyEvent(state, start());
    expect(state.lastEnd).toBeUndefined();
    expect(applyEvent(state, end('COMPLETED')).lastEnd?.status).toBe('COMPLETED');
  });

  it('gives a new frozen snapshot per event and never changes one it gave, even when an older one is applied to again', () => {
    const base = foldEvents([user('task'), thought(1, null, ['a'])]);
    const seen = JSON.stringify({ ...base, events: base.events.toArray(), conversation: conversationOf(base) });
    const next = applyEvent(base, result(1, 'a', 'A'));
    // A second branch from the same snapshot (as a reader that folds again would make) copies, never overwrites.
    const branch = applyEvent(base, user('other'));
    expect(next.version).toBe(3);
    expect(branch.version).toBe(3);
    expect(next.events.at(-1)).toMatchObject({ type: 'ACTION_RESULT' });
    expect(branch.events.at(-1)).toMatchObject({ type: 'USER_MESSAGE', content: 'other' });
    expect(JSON.stringify({ ...base, events: base.events.toArray(), conversation: conversationOf(base) })).toBe(seen);
    expect(Object.isFrozen(next)).toBe(true);
    expect(Object.isFrozen(next.pendingCalls)).toBe(true);
    const messages = conversationOf(next).messages;
    expect(Object.isFrozen(messages[1])).toBe(true);
    expect(() => {
      (messages[0] as { content: string }).content = 'changed';
    }).toThrow(TypeError);
    expect(emptyRunState()).toEqual(foldEvents([]));
  });

  it('keeps no JSON text of a large message: conversationOf gives it undefined, and the JSON of every other message', () => {
    const large = JSON.stringify({ data: 'é😀"x'.repeat(300_000) });
    const withLarge: JournalEvent = {
      seq: ++seq,
      timestamp,
      type: 'THOUGHT',
      iteration: 1,
      content: 'writes',
      llm_invocation_ref: 'inv1',
      tool_calls: [{ id: 'a', name: 'tool', arguments: large }],
    };
    let state = foldEvents([user('task'), withLarge]);
    expect(state.conversation.open?.assistantJson).toBeUndefined();
    const check = (withoutText: boolean[]) => {
      const conversation = conversationOf(state);
      expect(conversation.json).toEqual(
        conversation.messages.map((message, index) => (withoutText[index] ? undefined : JSON.stringify(message))),
      );
    };
    check([false, true, false]);
    state = foldEvents([result(1, 'a', 'done'), user('large '.repeat(200_000)), thought(2, 'two')], state);
    // The task and the tool result are kept as text; the assistant message and the large user message are not.
    check([false, true, false, true, false]);
    expect(state.conversation.json.toArray().map((text) => text === undefined)).toEqual([false, true, false, true, false]);
  });

  it('rebuilds the conversation: the task, whole turns, placeholders while results are missing, later messages after them', () => {
    let state = foldEvents([user('task'), thought(1, 'one', ['a', 'b']), result(1, 'a', 'A'), user('while waiting')]);
    let conversation = conversationOf(state);
    expect(conversation.messages).toEqual([
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: 'one',
        tool_calls: ['a', 'b'].map((id) => ({ id, type: 'function', function: { name: 'tool', arguments: '{}' } })),
      },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: MISSING_RESULT },
      { role: 'user', content: 'while waiting' },
    ]);
    expect(conversation.json).toEqual(conversation.messages.map((message) => JSON.stringify(message)));
    expect(conversation.hasTask).toBe(true);
    expect(conversation.turns).toEqual([
      { iteration: 1, start: 1, end: 4 },
      { iteration: undefined, start: 4, end: 5 },
    ]);
    state = foldEvents([result(1, 'b', 'B'), thought(2, 'two')], state);
    conversation = conversationOf(state);
    expect(conversation.messages.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'user', content: 'while waiting' },
      { role: 'assistant', content: 'two' },
    ]);
    expect(conversation.turns).toEqual([
      { iteration: 1, start: 1, end: 4 },
      { iteration: 2, start: 4, end: 6 },
    ]);
    // Without a user message first there is no task.
    expect(conversationOf(foldEvents([thought(1, 'hi'), user('later')]))).toMatchObject({
      hasTask: false,
      turns: [
        { iteration: 1, start: 0, end: 1 },
        { iteration: undefined, start: 1, end: 2 },
      ],
    });
  });
});

describe('AppendList', () => {
  it('shares its items along one line of appends, and copies for a second branch', () => {
    const empty = AppendList.empty<number>();
    const one = empty.append(1);
    const two = one.append(2);
    const other = one.append(9);
    expect([empty.toArray(), one.toArray(), two.toArray(), other.toArray()]).toEqual([[], [1], [1, 2], [1, 9]]);
    expect([two.at(-1), two.at(5), two.slice(1), [...other]]).toEqual([2, undefined, [2], [1, 9]]);
    expect(AppendList.empty<number>().append(3).toArray()).toEqual([3]);
    expect(empty.toArray()).toEqual([]);
  });
});
