import { gateDecision, observationOverride } from '@delta/hooks';
import type { PendingCall, RecordedToolCall } from '@delta/journal';
import type { Invocation } from '@delta/tool-expander';
import { ASK_HUMAN } from './ask-human.js';
import { answerAskHuman } from './answer-ask-human.js';
import { asksHuman } from './built-in-tools.js';
import type { RunOutcome } from './exit-codes.js';
import { INTERRUPTED_BEFORE_START, result } from './action-result.js';
import { runMcpCall } from './act-mcp.js';
import { answerLostCall, serveRecorded } from './answer-without-running.js';
import { routeCall } from './next-step.js';
import { record, type RunContext } from './run-context.js';
import { invokeHook } from './lifecycle-hooks.js';
import { executeToolCall, prepareToolCall, type ToolCallContext } from './run-tool-call.js';
import { isLargeText } from './response-record.js';
import { summarise } from './summarise.js';

/**
 * The pre_tool_execution gate (fails closed). Returns the invocation to run, or the observation that
 * says why the call does not run.
 */
async function gate(
  context: RunContext,
  toolContext: ToolCallContext,
  iteration: number,
  call: RecordedToolCall,
  args: Record<string, unknown>,
  invocation: Invocation,
): Promise<{ invocation: Invocation } | { blocked: string; by: string }> {
  const hook = await invokeHook(context, 'pre_tool_execution', {
    iteration,
    toolName: call.name,
    inputs: { tool_call: { name: call.name, arguments: args, action_id: call.id } },
  });
  if (!hook) return { invocation };
  const decision = gateDecision(hook);
  if (!decision.run) return { blocked: decision.reason ?? 'Blocked by the pre_tool_execution hook.', by: hook.ioPathRef };
  if (!decision.args) return { invocation };
  const rewritten = prepareToolCall({ ...call, arguments: JSON.stringify(decision.args) }, toolContext);
  if (rewritten.kind === 'rejected') {
    return {
      blocked: `Blocked: the arguments written by the pre_tool_execution hook do not fit the tool. ${rewritten.observation}`,
      by: hook.ioPathRef,
    };
  }
  record(context, {
    type: 'SYSTEM_MESSAGE',
    iteration,
    level: 'INFO',
    content: `pre_tool_execution rewrote the arguments of ${call.name} (${call.id}) to ${JSON.stringify(decision.args)}; it runs as: ${rewritten.invocation.commandLine}`,
  });
  return { invocation: rewritten.invocation };
}

/** A call that runs as a command: prepared, journaled, gated, run, observed, its result journaled. */
async function runCommandCall(context: RunContext, toolContext: ToolCallContext, { call, iteration }: PendingCall): Promise<void> {
  const prepared = prepareToolCall(call, toolContext);
  record(context, {
    type: 'ACTION_REQUEST',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    // Large arguments are stored once, in the THOUGHT (docs/models.md); small ones here too, parsed, for reading.
    ...(prepared.args !== null && isLargeText(call.arguments) ? { tool_args_in_thought: true as const } : { tool_args: prepared.args }),
    ...(prepared.kind === 'ready' ? { resolved_command: prepared.invocation.commandLine } : {}),
  });
  if (context.signal.aborted) return result(context, iteration, call, INTERRUPTED_BEFORE_START);
  if (prepared.kind === 'rejected') {
    context.log(`[${iteration}] ✗ ${call.name}: ${summarise(prepared.observation)}`);
    return result(context, iteration, call, prepared.observation);
  }
  const gated = await gate(context, toolContext, iteration, call, prepared.args, prepared.invocation);
  if ('blocked' in gated) {
    context.log(`[${iteration}] ✗ ${call.name}: ${summarise(gated.blocked)}`);
    return result(context, iteration, call, gated.blocked, { blocked_by: gated.by });
  }
  context.log(`[${iteration}] → ${call.name} ${summarise(call.arguments, 80)}`);
  const outcome = await executeToolCall(call, gated.invocation, toolContext);
  context.log(`[${iteration}] ← ${call.name}: ${outcome.interrupted ? 'interrupted' : `exit ${outcome.exitCode ?? 'none'}`}`);
  // Observe. post_tool_execution may replace what the model sees; the logs under io/ keep what the tool wrote.
  const post = await invokeHook(context, 'post_tool_execution', {
    iteration,
    toolName: call.name,
    toolResult: outcome.observation,
    inputs: {
      tool_call: { name: call.name, arguments: prepared.args, action_id: call.id },
      tool_result: {
        status: outcome.status,
        exit_code: outcome.exitCode,
        observation: outcome.observation,
        execution_ref: outcome.executionRef,
      },
    },
  });
  const override = post ? observationOverride(post) : undefined;
  result(context, iteration, call, override ?? outcome.observation, {
    status: outcome.status,
    exit_code: outcome.exitCode,
    ...(outcome.executionRef ? { execution_ref: outcome.executionRef } : {}),
    ...(override !== undefined && post ? { observation_overridden_by: post.ioPathRef } : {}),
  });
}

/**
 * The act step: every pending call of the last THOUGHT, in order, gets exactly one ACTION_RESULT, by
 * the route `routeCall` decides. Returns an outcome when the run must stop here (waiting for a human),
 * otherwise undefined.
 */
export async function act(context: RunContext, pending: readonly PendingCall[]): Promise<RunOutcome | undefined> {
  const toolContext: ToolCallContext = {
    tools: context.agent.tools,
    otherToolNames: [...(asksHuman(context.agent) ? [ASK_HUMAN] : []), ...(context.mcp?.tools.map((tool) => tool.name) ?? [])],
    paths: context.paths,
    agentHome: context.agent.home,
    env: context.env,
    credentials: context.credentials,
    signal: context.signal,
    launcher: context.launcher,
    sandbox: context.sandbox,
    ...(context.agent.config.max_tool_output_bytes === undefined ? {} : { maxOutputBytes: context.agent.config.max_tool_output_bytes }),
  };
  for (const item of pending) {
    const served = context.recordedTools?.(item.call, item.iteration);
    const route = routeCall(item, {
      recorded: served !== undefined,
      asksHuman: item.call.name === ASK_HUMAN && asksHuman(context.agent),
      mcp: context.mcp?.find(item.call.name) !== undefined,
    });
    if (route === 'recorded') serveRecorded(context, item.iteration, item.call, served!);
    else if (route === 'ask-human') {
      const outcome = await answerAskHuman(context, item);
      if (outcome) return outcome;
    } else if (route === 'lost') await answerLostCall(context, item);
    else if (route === 'mcp') await runMcpCall(context, item.iteration, item.call);
    else await runCommandCall(context, toolContext, item);
  }
  return undefined;
}
