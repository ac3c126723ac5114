import { observationOverride } from '@delta/hooks';
import type { JournalEvent, PendingCall } from '@delta/journal';
import { ASK_HUMAN } from './ask-human.js';
import { answerAskHuman } from './answer-ask-human.js';
import { asksHuman } from './built-in-tools.js';
import type { RunOutcome } from './exit-codes.js';
import { INTERRUPTED_BEFORE_START, resultEvent } from './action-result.js';
import { runMcpCall } from './act-mcp.js';
import { answerLostCall, serveRecorded } from './answer-without-running.js';
import { routeCall } from './next-step.js';
import { releaseAfterLarge } from './release-memory.js';
import type { Emit, RunContext } from './run-context.js';
import { invokeHook } from './lifecycle-hooks.js';
import { executeToolCall, prepareToolCall, type ToolCallContext, toolCallContext } from './run-tool-call.js';
import { isLargeText } from './response-record.js';
import { summarise } from './summarise.js';
import { gate } from './tool-gate.js';

/** A call that runs as a command: prepared, its request emitted, gated, run, observed; emits and returns its result. */
async function runCommandCall(
  context: RunContext,
  tools: ToolCallContext,
  { call, iteration }: PendingCall,
  emit: Emit,
): Promise<JournalEvent> {
  const prepared = prepareToolCall(call, tools);
  // On disk before the tool starts: a run that dies while it runs says so on resume (answerLostCall).
  emit({
    type: 'ACTION_REQUEST',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    // Large arguments are stored once, in the THOUGHT (docs/models.md); small ones here too, parsed, for reading.
    ...(prepared.args !== null && isLargeText(call.arguments) ? { tool_args_in_thought: true as const } : { tool_args: prepared.args }),
    ...(prepared.kind === 'ready' ? { resolved_command: prepared.invocation.commandLine } : {}),
  });
  if (context.signal.aborted) return emit(resultEvent(iteration, call, INTERRUPTED_BEFORE_START));
  if (prepared.kind === 'rejected') {
    context.log(`[${iteration}] ✗ ${call.name}: ${summarise(prepared.observation)}`);
    return emit(resultEvent(iteration, call, prepared.observation));
  }
  const gated = await gate(context, tools, iteration, call, prepared.args, prepared.invocation, emit);
  if ('blocked' in gated) {
    context.log(`[${iteration}] ✗ ${call.name}: ${summarise(gated.blocked)}`);
    return emit(resultEvent(iteration, call, gated.blocked, { blocked_by: gated.by }));
  }
  context.log(`[${iteration}] → ${call.name} ${summarise(call.arguments, 80)}`);
  const outcome = await executeToolCall(call, gated.invocation, tools);
  context.log(`[${iteration}] ← ${call.name}: ${outcome.interrupted ? 'interrupted' : `exit ${outcome.exitCode ?? 'none'}`}`);
  // Observe. post_tool_execution may replace what the model sees; the logs under io/ keep what the tool wrote.
  const { status, exitCode, observation, executionRef } = outcome;
  const inputs = {
    tool_call: { name: call.name, arguments: prepared.args, action_id: call.id },
    tool_result: { status, exit_code: exitCode, observation, execution_ref: executionRef },
  };
  const post = await invokeHook(context, 'post_tool_execution', { iteration, toolName: call.name, toolResult: observation, inputs }, emit);
  const override = post ? observationOverride(post) : undefined;
  return emit(
    resultEvent(iteration, call, override ?? observation, {
      status,
      exit_code: exitCode,
      ...(executionRef ? { execution_ref: executionRef } : {}),
      ...(override !== undefined && post ? { observation_overridden_by: post.ioPathRef } : {}),
    }),
  );
}

/** Every pending call, in order, by its route: an outcome when the run must stop here (waiting for a human). */
async function answerCalls(context: RunContext, pending: readonly PendingCall[], emit: Emit): Promise<RunOutcome | undefined> {
  const tools = toolCallContext(context);
  for (const item of pending) {
    const served = context.recordedTools?.(item.call, item.iteration);
    const route = routeCall(item, {
      recorded: served !== undefined,
      asksHuman: item.call.name === ASK_HUMAN && asksHuman(context.agent),
      mcp: context.mcp?.find(item.call.name) !== undefined,
    });
    if (route === 'recorded') serveRecorded(context, item.iteration, item.call, served!, emit);
    else if (route === 'ask-human') {
      const outcome = await answerAskHuman(context, item, emit);
      if (outcome) return outcome;
    } else if (route === 'lost') await answerLostCall(context, item, emit);
    else if (route === 'mcp') await runMcpCall(context, item.iteration, item.call, emit);
    else await runCommandCall(context, tools, item, emit);
  }
  return undefined;
}

/**
 * The act step: every pending call of the last THOUGHT, in order, gets exactly one ACTION_RESULT, by
 * the route `routeCall` decides. Returns an outcome when the run must stop here (waiting for a human),
 * otherwise undefined. The copies large arguments or outputs left are collected before the next step.
 */
export async function act(context: RunContext, pending: readonly PendingCall[], emit: Emit): Promise<RunOutcome | undefined> {
  // The calls' arguments (a tool's stdin) and their observations (its output, read and journaled).
  let chars = pending.reduce((sum, { call }) => sum + call.arguments.length, 0);
  const paused = await answerCalls(context, pending, (event) => {
    const written = emit(event);
    if (written.type === 'ACTION_RESULT') chars += written.observation_content.length;
    return written;
  });
  releaseAfterLarge(chars);
  return paused;
}
