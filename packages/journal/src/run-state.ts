import { AppendList } from './append-list.js';
import { applyToConversation, emptyConversation, type ConversationFold } from './conversation-fold.js';
import type { EngineEndEvent, HumanInputRequestEvent, JournalEvent, RecordedToolCall } from './events.js';

/** A tool call of the last THOUGHT that has no ACTION_RESULT yet. */
export interface PendingCall {
  readonly call: RecordedToolCall;
  /** The iteration of the THOUGHT that made the call. */
  readonly iteration: number;
  /** An ACTION_REQUEST was journaled: the call had started (a tool may have run, or a human was asked). */
  readonly started: boolean;
  /** The HUMAN_INPUT_REQUEST of this call, when it is still waiting for its answer. */
  readonly waitingForHuman: HumanInputRequestEvent | undefined;
  /** The human's answer, when HUMAN_INPUT_RECEIVED was journaled but the run stopped before its ACTION_RESULT. */
  readonly received: string | undefined;
}

/**
 * A run's state: the fold of its journal's events (see docs/run-state.md). A snapshot never changes;
 * `applyEvent` returns a new one. `version` is the number of events folded into it, so two snapshots of
 * one journal with the same version are the same state.
 */
export interface RunState {
  readonly version: number;
  /** Every event folded, in order. */
  readonly events: AppendList<JournalEvent>;
  /** The seq of the last event (0 for none): the next one must be higher. */
  readonly lastSeq: number;
  /** Model calls that produced a THOUGHT. */
  readonly iterations: number;
  /** HOOK_EXECUTION_AUDIT events: hook runs recorded. */
  readonly hookRuns: number;
  /**
   * The model's final answer, when its last word was one (a THOUGHT without tool calls) and no user
   * message or tool result came after it; otherwise undefined.
   */
  readonly finalAnswer: string | undefined;
  /** The calls of the last THOUGHT without an ACTION_RESULT, in the order the model made them. */
  readonly pendingCalls: readonly PendingCall[];
  /** The ENGINE_END of the latest engine invocation (since its ENGINE_START), if it ended. */
  readonly lastEnd: EngineEndEvent | undefined;
  /** The conversation the journal rebuilds (see conversationOf). */
  readonly conversation: ConversationFold;
}

/** The state of a run with no events. */
export function emptyRunState(): RunState {
  return Object.freeze({
    version: 0,
    events: AppendList.empty<JournalEvent>(),
    lastSeq: 0,
    iterations: 0,
    hookRuns: 0,
    finalAnswer: undefined,
    pendingCalls: Object.freeze([]),
    lastEnd: undefined,
    conversation: emptyConversation(),
  });
}

function updatePending(pending: readonly PendingCall[], actionId: string, change: Partial<PendingCall>): readonly PendingCall[] {
  if (!pending.some((item) => item.call.id === actionId)) return pending;
  return Object.freeze(pending.map((item) => (item.call.id === actionId ? Object.freeze({ ...item, ...change }) : item)));
}

function nextPending(pending: readonly PendingCall[], event: JournalEvent): readonly PendingCall[] {
  switch (event.type) {
    case 'THOUGHT':
      return Object.freeze(
        event.tool_calls.map((call) =>
          Object.freeze({ call, iteration: event.iteration, started: false, waitingForHuman: undefined, received: undefined }),
        ),
      );
    case 'ACTION_REQUEST':
      return updatePending(pending, event.action_id, { started: true });
    case 'ACTION_RESULT':
      return pending.some((item) => item.call.id === event.action_id)
        ? Object.freeze(pending.filter((item) => item.call.id !== event.action_id))
        : pending;
    case 'HUMAN_INPUT_REQUEST':
      return updatePending(pending, event.action_id, { waitingForHuman: event });
    case 'HUMAN_INPUT_RECEIVED':
      return updatePending(pending, event.action_id, { waitingForHuman: undefined, received: event.response });
    default:
      return pending;
  }
}

function nextFinalAnswer(current: string | undefined, event: JournalEvent): string | undefined {
  if (event.type === 'THOUGHT') return event.tool_calls.length === 0 ? (event.content ?? '') : undefined;
  if (event.type === 'USER_MESSAGE' || event.type === 'ACTION_RESULT') return undefined;
  return current;
}

/**
 * The state after one more event: a pure function of the state and the event. The caller checks the
 * event's seq (the journal's readers and writer do); the state only records it.
 */
export function applyEvent(state: RunState, event: JournalEvent): RunState {
  return Object.freeze({
    version: state.version + 1,
    events: state.events.append(event),
    lastSeq: event.seq,
    iterations: state.iterations + (event.type === 'THOUGHT' ? 1 : 0),
    hookRuns: state.hookRuns + (event.type === 'HOOK_EXECUTION_AUDIT' ? 1 : 0),
    finalAnswer: nextFinalAnswer(state.finalAnswer, event),
    pendingCalls: nextPending(state.pendingCalls, event),
    lastEnd: event.type === 'ENGINE_END' ? event : event.type === 'ENGINE_START' ? undefined : state.lastEnd,
    conversation: applyToConversation(state.conversation, event),
  });
}

/** Folds events into a state: `state` (by default the empty one) with each event applied in order. */
export function foldEvents(events: Iterable<JournalEvent>, state: RunState = emptyRunState()): RunState {
  let folded = state;
  for (const event of events) folded = applyEvent(folded, event);
  return folded;
}
