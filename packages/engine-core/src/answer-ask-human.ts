import type { PendingCall } from '@delta/journal';
import {
  clearInteraction,
  createHumanInputRequest,
  parseAskHumanArguments,
  readInteractionResponse,
  writeInteractionRequest,
  type HumanInputRequest,
} from './ask-human.js';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import type { Emit, RunContext } from './run-context.js';
import { parseToolArguments } from './run-tool-call.js';

function finishWithAnswer(context: RunContext, item: PendingCall, answer: string, emit: Emit): void {
  emit({ type: 'HUMAN_INPUT_RECEIVED', iteration: item.iteration, action_id: item.call.id, response: answer });
  resultFromAnswer(context, item, answer, emit);
}

function resultFromAnswer(context: RunContext, item: PendingCall, answer: string, emit: Emit): void {
  emit({
    type: 'ACTION_RESULT',
    iteration: item.iteration,
    action_id: item.call.id,
    tool_name: item.call.name,
    status: 'SUCCESS',
    observation_content: answer,
    exit_code: 0,
  });
  clearInteraction(context.paths);
}

function waiting(context: RunContext, request: HumanInputRequest): RunOutcome {
  writeInteractionRequest(context.paths, request);
  return { status: 'WAITING_FOR_INPUT', exitCode: ExitCode.WAITING_FOR_INPUT, reason: `waiting for a human answer to: ${request.prompt}` };
}

async function ask(context: RunContext, item: PendingCall, request: HumanInputRequest, emit: Emit): Promise<RunOutcome | undefined> {
  const answer = readInteractionResponse(context.paths);
  if (answer !== undefined) {
    finishWithAnswer(context, item, answer, emit);
    return undefined;
  }
  if (!context.askHuman) return waiting(context, request);
  try {
    finishWithAnswer(context, item, await context.askHuman(request, context.signal), emit);
    return undefined;
  } catch (error) {
    if (!context.signal.aborted) throw error;
    emit({
      type: 'ACTION_RESULT',
      iteration: item.iteration,
      action_id: item.call.id,
      tool_name: item.call.name,
      status: 'ERROR',
      observation_content: '[no answer: the run was interrupted while waiting for the human]',
      exit_code: null,
    });
    return undefined;
  }
}

/**
 * ask_human, the built-in tool. Its answer is always the ask_human tool result, never a user message
 * between a call and its result. A paused run resumes here with the answer from response.txt.
 */
export async function answerAskHuman(context: RunContext, item: PendingCall, emit: Emit): Promise<RunOutcome | undefined> {
  const { call, iteration } = item;
  if (item.received !== undefined) {
    // The answer is in the journal but the run stopped before its result: never ask the human twice.
    resultFromAnswer(context, item, item.received, emit);
    return undefined;
  }
  if (item.waitingForHuman) {
    const asked = item.waitingForHuman;
    const request = createHumanInputRequest(call.id, {
      prompt: asked.prompt,
      input_type: asked.input_type ?? 'text',
      sensitive: asked.sensitive ?? false,
    });
    return ask(context, item, request, emit);
  }
  const parsed = parseToolArguments(call.arguments);
  const fields = 'args' in parsed ? parseAskHumanArguments(parsed.args) : `Error: ${parsed.error}`;
  if (!item.started) {
    emit({
      type: 'ACTION_REQUEST',
      iteration,
      action_id: call.id,
      tool_name: call.name,
      tool_args: 'args' in parsed ? parsed.args : null,
    });
  }
  if (typeof fields === 'string') {
    emit({
      type: 'ACTION_RESULT',
      iteration,
      action_id: call.id,
      tool_name: call.name,
      status: 'ERROR',
      observation_content: fields.startsWith('Error: ') ? fields : `Error: ${fields}`,
      exit_code: null,
    });
    return undefined;
  }
  const request = createHumanInputRequest(call.id, fields);
  emit({ type: 'HUMAN_INPUT_REQUEST', iteration, action_id: call.id, ...fields });
  context.log(`[${iteration}] ? ask_human: ${fields.prompt}`);
  return ask(context, item, request, emit);
}
