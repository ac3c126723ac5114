import { gateDecision, observationOverride } from '@delta/hooks';
import { stopProcessGroupIfSame } from '@delta/command-runner';
import { unfinishedToolExecutions, type ActionResultEvent, type PendingCall, type RecordedToolCall } from '@delta/journal';
import type { Invocation } from '@delta/tool-expander';
import { ASK_HUMAN } from './ask-human.js';
import { answerAskHuman } from './answer-ask-human.js';
import { asksHuman } from './built-in-tools.js';
import type { RunOutcome } from './exit-codes.js';
import { INTERRUPTED_BEFORE_START, result } from './action-result.js';
import { runMcpCall } from './act-mcp.js';
import { record, type RunContext } from './run-context.js';
import { invokeHook } from './lifecycle-hooks.js';
import { executeToolCall, prepareToolCall, type ToolCallContext } from './run-tool-call.js';
import { isLargeText } from './response-record.js';
import { summarise } from './summarise.js';

function stoppedWhileRunning(call: RecordedToolCall, orphans: string): string {
  return (
    `[the run stopped while this tool call was running (the engine was interrupted or crashed), so its result is unknown. ` +
    `It was not run again${orphans}: call ${call.name} again if you still need it; any partial output is in io/tool_executions/.]`
  );
}

/**
 * A tool the dead engine left running would go on changing the workspace behind the resumed run: stop
 * its process group, when process.json proves it is the same process (pid and start time).
 */
async function stopOrphans(context: RunContext, call: RecordedToolCall): Promise<string> {
  const stopped: number[] = [];
  for (const { process } of unfinishedToolExecutions(context.paths, call.id)) {
    if (process?.start_ticks === undefined) continue;
    if (await stopProcessGroupIfSame(process.pid, process.start_ticks)) stopped.push(process.pid);
  }
  if (stopped.length === 0) return '';
  context.log(`stopped the process group of ${call.name} (pid ${stopped.join(', ')}), left running by the engine that stopped`);
  return `, and its process (pid ${stopped.join(', ')}), still running, was stopped`;
}

/** A replay with recorded tools: the call's recorded request and result, and nothing run. */
function serveRecorded(context: RunContext, iteration: number, call: RecordedToolCall, served: ActionResultEvent): void {
  const parsed = prepareToolCall(call, {
    tools: context.agent.tools,
    paths: context.paths,
    agentHome: context.agent.home,
    env: context.env,
  });
  record(context, {
    type: 'ACTION_REQUEST',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    tool_args: parsed.args,
    ...(parsed.kind === 'ready' ? { resolved_command: parsed.invocation.commandLine } : {}),
  });
  result(context, iteration, call, served.observation_content, {
    status: served.status,
    exit_code: served.exit_code,
    ...(served.execution_ref ? { execution_ref: served.execution_ref } : {}),
  });
}

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

/**
 * The act phase: every pending call of the last THOUGHT, in order, gets exactly one ACTION_RESULT.
 * Returns an outcome when the run must stop here (waiting for a human), otherwise undefined.
 */
export async function act(context: RunContext, pending: readonly PendingCall[]): Promise<RunOutcome | undefined> {
  const toolContext = {
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
    const { call, iteration } = item;
    const served = context.recordedTools?.(call, iteration);
    if (served) {
      serveRecorded(context, iteration, call, served);
      continue;
    }
    if (call.name === ASK_HUMAN && asksHuman(context.agent)) {
      const outcome = await answerAskHuman(context, item);
      if (outcome) return outcome;
      continue;
    }
    if (item.started) {
      result(context, iteration, call, stoppedWhileRunning(call, await stopOrphans(context, call)));
      continue;
    }
    if (context.mcp?.find(call.name)) {
      await runMcpCall(context, iteration, call);
      continue;
    }
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
    if (context.signal.aborted) {
      result(context, iteration, call, INTERRUPTED_BEFORE_START);
      continue;
    }
    if (prepared.kind === 'rejected') {
      context.log(`[${iteration}] ✗ ${call.name}: ${summarise(prepared.observation)}`);
      result(context, iteration, call, prepared.observation);
      continue;
    }
    const gated = await gate(context, toolContext, iteration, call, prepared.args, prepared.invocation);
    if ('blocked' in gated) {
      context.log(`[${iteration}] ✗ ${call.name}: ${summarise(gated.blocked)}`);
      result(context, iteration, call, gated.blocked, { blocked_by: gated.by });
      continue;
    }
    context.log(`[${iteration}] → ${call.name} ${summarise(call.arguments, 80)}`);
    const outcome = await executeToolCall(call, gated.invocation, toolContext);
    context.log(`[${iteration}] ← ${call.name}: ${outcome.interrupted ? 'interrupted' : `exit ${outcome.exitCode ?? 'none'}`}`);
    // post_tool_execution may replace what the model sees; the logs under io/ keep what the tool wrote.
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
  return undefined;
}
