import type { HumanInputRequestEvent, JournalEvent, RecordedToolCall } from '@delta/journal';

export interface PendingCall {
  call: RecordedToolCall;
  /** The iteration of the THOUGHT that made the call. */
  iteration: number;
  /** An ACTION_REQUEST was journaled: the call had started (a tool may have run, or a human was asked). */
  started: boolean;
  /** The HUMAN_INPUT_REQUEST of this call, when it is still waiting for its answer. */
  waitingForHuman: HumanInputRequestEvent | undefined;
  /** The human's answer, when HUMAN_INPUT_RECEIVED was journaled but the run stopped before its ACTION_RESULT. */
  received: string | undefined;
}

/** The calls of the last THOUGHT that have no ACTION_RESULT yet, in the order the model made them. */
export function pendingCalls(events: readonly JournalEvent[]): PendingCall[] {
  let lastThought = -1;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    if (events[index]!.type === 'THOUGHT') {
      lastThought = index;
      break;
    }
  }
  if (lastThought < 0) return [];
  const thought = events[lastThought]!;
  if (thought.type !== 'THOUGHT' || thought.tool_calls.length === 0) return [];
  const started = new Set<string>();
  const answered = new Set<string>();
  const asked = new Map<string, HumanInputRequestEvent>();
  const received = new Map<string, string>();
  for (const event of events.slice(lastThought + 1)) {
    if (event.type === 'ACTION_REQUEST') started.add(event.action_id);
    if (event.type === 'ACTION_RESULT') answered.add(event.action_id);
    if (event.type === 'HUMAN_INPUT_REQUEST') asked.set(event.action_id, event);
    if (event.type === 'HUMAN_INPUT_RECEIVED') {
      asked.delete(event.action_id);
      received.set(event.action_id, event.response);
    }
  }
  return thought.tool_calls
    .filter((call) => !answered.has(call.id))
    .map((call) => ({
      call,
      iteration: thought.iteration,
      started: started.has(call.id),
      waitingForHuman: asked.get(call.id),
      received: received.get(call.id),
    }));
}
