import { gateDecision } from '@delta/hooks';
import type { RecordedToolCall } from '@delta/journal';
import type { Invocation } from '@delta/tool-expander';
import { invokeHook } from './lifecycle-hooks.js';
import type { Emit, RunContext } from './run-context.js';
import { prepareToolCall, type ToolCallContext } from './run-tool-call.js';

/**
 * The pre_tool_execution gate of a command call (fails closed). Returns the invocation to run, or the
 * observation that says why the call does not run. Arguments the hook rewrote are checked and built again.
 */
export async function gate(
  context: RunContext,
  toolContext: ToolCallContext,
  iteration: number,
  call: RecordedToolCall,
  args: Record<string, unknown>,
  invocation: Invocation,
  emit: Emit,
): Promise<{ invocation: Invocation } | { blocked: string; by: string }> {
  const hook = await invokeHook(
    context,
    'pre_tool_execution',
    { iteration, toolName: call.name, inputs: { tool_call: { name: call.name, arguments: args, action_id: call.id } } },
    emit,
  );
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
  emit({
    type: 'SYSTEM_MESSAGE',
    iteration,
    level: 'INFO',
    content: `pre_tool_execution rewrote the arguments of ${call.name} (${call.id}) to ${JSON.stringify(decision.args)}; it runs as: ${rewritten.invocation.commandLine}`,
  });
  return { invocation: rewritten.invocation };
}
