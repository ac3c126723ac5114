import type { RecordedToolCall } from '@delta/journal';
import { record, type RunContext } from './run-context.js';

export interface ResultFields {
  status?: 'SUCCESS' | 'FAILED' | 'ERROR';
  exit_code?: number | null;
  execution_ref?: string;
  /** The io/hooks/ directory of the hook that blocked the call or replaced its observation. */
  blocked_by?: string;
  observation_overridden_by?: string;
}

/** Records the one ACTION_RESULT of a call. */
export function result(context: RunContext, iteration: number, call: RecordedToolCall, observation: string, extra: ResultFields = {}) {
  const { status = 'ERROR', exit_code = null, ...references } = extra;
  record(context, {
    type: 'ACTION_RESULT',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    status,
    observation_content: observation,
    exit_code,
    ...references,
  });
}

export const INTERRUPTED_BEFORE_START = '[not run: the run was interrupted before this tool call started]';
