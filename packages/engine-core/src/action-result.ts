import type { NewJournalEvent, RecordedToolCall } from '@delta/journal';

export interface ResultFields {
  status?: 'SUCCESS' | 'FAILED' | 'ERROR';
  exit_code?: number | null;
  execution_ref?: string;
  /** The io/hooks/ directory of the hook that blocked the call or replaced its observation. */
  blocked_by?: string;
  observation_overridden_by?: string;
}

/** The one ACTION_RESULT of a call, for the effect that answered it to emit. */
export function resultEvent(iteration: number, call: RecordedToolCall, observation: string, extra: ResultFields = {}): NewJournalEvent {
  const { status = 'ERROR', exit_code = null, ...references } = extra;
  return {
    type: 'ACTION_RESULT',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    status,
    observation_content: observation,
    exit_code,
    ...references,
  };
}

export const INTERRUPTED_BEFORE_START = '[not run: the run was interrupted before this tool call started]';
