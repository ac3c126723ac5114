import { describe, expect, it } from 'vitest';
import { emptyRunState, foldEvents, type JournalEvent, type PendingCall, type RunState } from '@delta/journal';
import { type LoopView, mayCallModel, nextStep, routeCall, STOP_CONDITIONS } from './next-step.js';
import { RunLimitReached } from './run-limits.js';

// The loop's decisions are pure: these tests build the run's state from journal events, with no process,
// no file and no server.
let seq = 0;
const timestamp = '2026-01-01T00:00:00.000Z';
const user = (content: string): JournalEvent => ({ seq: ++seq, timestamp, type: 'USER_MESSAGE', content });
const thought = (iteration: number, content: string | null, calls: string[] = []): JournalEvent => ({
  seq: ++seq,
  timestamp,
  type: 'THOUGHT',
  iteration,
  content,
  llm_invocation_ref: `inv${iteration}`,
  tool_calls: calls.map((id) => ({ id, name: 'tool', arguments: '{}' })),
});
const result = (iteration: number, id: string): JournalEvent => ({
  seq: ++seq,
  timestamp,
  type: 'ACTION_RESULT',
  iteration,
  action_id: id,
  tool_name: 'tool',
  status: 'SUCCESS',
  observation_content: 'ok',
  exit_code: 0,
});

const stateOf = (...events: JournalEvent[]): RunState => foldEvents(events, emptyRunState());

function view(state: RunState, overrides: Partial<LoopView> = {}): LoopView {
  return {
    state,
    answerInHand: false,
    aborted: false,
    abortReason: undefined,
    lastIteration: 30,
    maxIterations: 30,
    spent: 0,
    maxCost: undefined,
    currency: 'USD',
    agentChanged: undefined,
    ...overrides,
  };
}

const interrupted = { aborted: true, abortReason: new Error('SIGINT') };
const timedOut = { aborted: true, abortReason: new RunLimitReached('reached the time limit (--timeout 1s) before the task was complete') };

describe('the next step of the loop', () => {
  it('calls the model for the first iteration of a new run, and for the next after every call has a result', () => {
    expect(nextStep(view(stateOf(user('task'))))).toEqual({ kind: 'think', iteration: 1 });
    const answered = stateOf(user('task'), thought(1, null, ['a', 'b']), result(1, 'a'), result(1, 'b'));
    expect(nextStep(view(answered))).toEqual({ kind: 'think', iteration: 2 });
  });

  it('answers the calls of the last THOUGHT that have no result, in order, before any stop: a run stops between iterations', () => {
    const state = stateOf(user('task'), thought(1, null, ['a', 'b', 'c']), result(1, 'a'));
    for (const overrides of [{ lastIteration: 1, spent: 5, maxCost: 1, agentChanged: 'changed' }, interrupted, timedOut]) {
      const step = nextStep(view(state, overrides));
      expect(step.kind).toBe('act');
      expect(step.kind === 'act' && step.calls.map((pending: PendingCall) => pending.call.id)).toEqual(['b', 'c']);
    }
  });

  it('journals an answer in hand first, even when the run is interrupted or out of budget', () => {
    const state = stateOf(user('task'));
    expect(nextStep(view(state, { answerInHand: true, ...interrupted, lastIteration: 0 }))).toEqual({ kind: 'record-answer' });
  });

  it('stops COMPLETED with the final answer, which an interrupt after it does not undo', () => {
    const state = stateOf(user('task'), thought(1, 'done'));
    for (const overrides of [{}, interrupted]) {
      expect(nextStep(view(state, overrides))).toEqual({
        kind: 'stop',
        because: 'final answer',
        outcome: { status: 'COMPLETED', exitCode: 0, finalAnswer: 'done' },
      });
    }
    // A new message after the answer: the run goes on.
    expect(nextStep(view(stateOf(user('task'), thought(1, 'done'), user('more'))))).toEqual({ kind: 'think', iteration: 2 });
  });

  it('stops INTERRUPTED (130) on a signal, and INTERRUPTED (3) with the limit as reason on a --timeout', () => {
    const pending = stateOf(user('task'), thought(1, null, ['a']), result(1, 'a'));
    expect(nextStep(view(pending, interrupted))).toMatchObject({
      kind: 'stop',
      because: 'interrupted',
      outcome: { status: 'INTERRUPTED', exitCode: 130, reason: 'interrupted by a signal' },
    });
    expect(nextStep(view(pending, timedOut))).toMatchObject({
      kind: 'stop',
      because: 'time',
      outcome: { status: 'INTERRUPTED', exitCode: 3, reason: 'reached the time limit (--timeout 1s) before the task was complete' },
    });
  });

  it('stops before a model call once this invocation has spent its --max-cost, and not a cent before', () => {
    const state = stateOf(user('task'), thought(1, null, ['a']), result(1, 'a'));
    expect(nextStep(view(state, { spent: 0.4999, maxCost: 0.5 })).kind).toBe('think');
    expect(nextStep(view(state, { spent: 0.5, maxCost: 0.5, currency: 'EUR' }))).toMatchObject({
      kind: 'stop',
      because: 'cost',
      outcome: {
        status: 'INTERRUPTED',
        exitCode: 3,
        reason: 'reached the cost limit (--max-cost 0.5 EUR): 0.5000 EUR spent by this invocation before the task was complete',
      },
    });
  });

  it('stops at the iteration budget of this invocation: the last allowed iteration still runs', () => {
    const state = stateOf(user('task'), thought(1, null, ['a']), result(1, 'a'));
    expect(nextStep(view(state, { lastIteration: 2, maxIterations: 1 }))).toEqual({ kind: 'think', iteration: 2 });
    expect(nextStep(view(state, { lastIteration: 1, maxIterations: 1 }))).toMatchObject({
      kind: 'stop',
      because: 'iterations',
      outcome: {
        status: 'INTERRUPTED',
        exitCode: 3,
        reason: 'reached the iteration budget (--max-iterations 1) before the task was complete',
      },
    });
  });

  it('looks at the pinned agent only before a model call, and stops INTERRUPTED when its files changed', () => {
    // The loop reads the agent's files only when mayCallModel says a model call may come next.
    const pending = stateOf(user('task'), thought(1, null, ['a']));
    expect(mayCallModel(pending, false)).toBe(false);
    expect(mayCallModel(stateOf(user('task')), true)).toBe(false);
    expect(mayCallModel(stateOf(user('task')), false)).toBe(true);
    const agentChanged = 'the agent changed';
    expect(nextStep(view(pending, { agentChanged })).kind).toBe('act');
    expect(nextStep(view(stateOf(user('task')), { agentChanged }))).toMatchObject({
      kind: 'stop',
      because: 'agent changed',
      outcome: { status: 'INTERRUPTED', exitCode: 130, reason: 'the agent changed' },
    });
  });

  it('checks the stop conditions in the order of the one list, and takes another list', () => {
    expect(STOP_CONDITIONS.map((condition) => condition.name)).toEqual([
      'final answer',
      'time',
      'interrupted',
      'cost',
      'iterations',
      'agent changed',
    ]);
    // Over budget and over cost at once: the cost is said, as it comes first.
    const state = stateOf(user('task'));
    expect(nextStep(view(state, { lastIteration: 0, spent: 2, maxCost: 1 }))).toMatchObject({ because: 'cost' });
    const iterationsOnly = STOP_CONDITIONS.filter((condition) => condition.name === 'iterations');
    expect(nextStep(view(state, { lastIteration: 0, spent: 2, maxCost: 1 }), iterationsOnly)).toMatchObject({ because: 'iterations' });
  });
});

describe('the route of a pending call', () => {
  const pending = (started: boolean): PendingCall => ({
    call: { id: 'a', name: 'tool', arguments: '{}' },
    iteration: 1,
    started,
    waitingForHuman: undefined,
    received: undefined,
  });
  const none = { recorded: false, asksHuman: false, mcp: false };

  it('serves a recorded result first, then asks the human, then reports a call that had started, then runs it', () => {
    expect(routeCall(pending(true), { recorded: true, asksHuman: true, mcp: true })).toBe('recorded');
    expect(routeCall(pending(true), { ...none, asksHuman: true, mcp: true })).toBe('ask-human');
    expect(routeCall(pending(true), { ...none, mcp: true })).toBe('lost');
    expect(routeCall(pending(false), { ...none, mcp: true })).toBe('mcp');
    expect(routeCall(pending(false), none)).toBe('command');
  });
});
