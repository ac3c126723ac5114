import type { RecordedToolCall } from '@delta/journal';
import { ASK_HUMAN } from './ask-human.js';
import { answerAskHuman } from './answer-ask-human.js';
import type { RunOutcome } from './exit-codes.js';
import type { PendingCall } from './pending-calls.js';
import { record, type RunContext } from './run-context.js';
import { executeToolCall, prepareToolCall } from './run-tool-call.js';
import { summarise } from './summarise.js';

const INTERRUPTED_BEFORE_START = '[not run: the run was interrupted before this tool call started]';

function stoppedWhileRunning(call: RecordedToolCall): string {
  return (
    `[the run stopped while this tool call was running (the engine was interrupted or crashed), so its result is unknown. ` +
    `It was not run again: call ${call.name} again if you still need it; any partial output is in io/tool_executions/.]`
  );
}

function result(context: RunContext, iteration: number, call: RecordedToolCall, observation: string, extra: { status?: 'SUCCESS' | 'FAILED' | 'ERROR'; exit_code?: number | null; execution_ref?: string } = {}) {
  record(context, {
    type: 'ACTION_RESULT',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    status: extra.status ?? 'ERROR',
    observation_content: observation,
    exit_code: extra.exit_code ?? null,
    ...(extra.execution_ref ? { execution_ref: extra.execution_ref } : {}),
  });
}

/**
 * The act phase: every pending call of the last THOUGHT, in order, gets exactly one ACTION_RESULT.
 * Returns an outcome when the run must stop here (waiting for a human), otherwise undefined.
 */
export async function act(context: RunContext, pending: readonly PendingCall[]): Promise<RunOutcome | undefined> {
  const toolContext = {
    tools: context.agent.tools,
    paths: context.paths,
    agentHome: context.agent.home,
    env: context.env,
    credentials: context.credentials,
    signal: context.signal,
  };
  for (const item of pending) {
    const { call, iteration } = item;
    if (call.name === ASK_HUMAN) {
      const outcome = await answerAskHuman(context, item);
      if (outcome) return outcome;
      continue;
    }
    if (item.started) {
      result(context, iteration, call, stoppedWhileRunning(call));
      continue;
    }
    const prepared = prepareToolCall(call, toolContext);
    record(context, {
      type: 'ACTION_REQUEST',
      iteration,
      action_id: call.id,
      tool_name: call.name,
      tool_args: prepared.args,
      ...(prepared.kind === 'ready' ? { resolved_command: prepared.invocation.commandLine } : {}),
    });
    if (context.signal.aborted) {
      result(context, iteration, call, INTERRUPTED_BEFORE_START);
      continue;
    }
    if (prepared.kind === 'rejected') {
      context.log(`[${iteration}] ✗ ${call.name}: ${summarise(prepared.observation)}`);
      result(context, iteration, call, prepared.observation);
      continue;
    }
    context.log(`[${iteration}] → ${call.name} ${summarise(call.arguments, 80)}`);
    const outcome = await executeToolCall(call, prepared.invocation, toolContext);
    context.log(`[${iteration}] ← ${call.name}: ${outcome.interrupted ? 'interrupted' : `exit ${outcome.exitCode ?? 'none'}`}`);
    result(context, iteration, call, outcome.observation, {
      status: outcome.status,
      exit_code: outcome.exitCode,
      ...(outcome.executionRef ? { execution_ref: outcome.executionRef } : {}),
    });
  }
  return undefined;
}
