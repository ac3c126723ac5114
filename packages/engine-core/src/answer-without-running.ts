import { stopProcessGroupIfSame } from '@delta/command-runner';
import { unfinishedToolExecutions, type ActionResultEvent, type PendingCall, type RecordedToolCall } from '@delta/journal';
import { resultEvent } from './action-result.js';
import type { Emit, RunContext } from './run-context.js';
import { prepareToolCall } from './run-tool-call.js';

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
export function serveRecorded(context: RunContext, iteration: number, call: RecordedToolCall, served: ActionResultEvent, emit: Emit): void {
  const parsed = prepareToolCall(call, {
    tools: context.agent.tools,
    paths: context.paths,
    agentHome: context.agent.home,
    env: context.env,
  });
  emit({
    type: 'ACTION_REQUEST',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    tool_args: parsed.args,
    ...(parsed.kind === 'ready' ? { resolved_command: parsed.invocation.commandLine } : {}),
  });
  emit(
    resultEvent(iteration, call, served.observation_content, {
      status: served.status,
      exit_code: served.exit_code,
      ...(served.execution_ref ? { execution_ref: served.execution_ref } : {}),
    }),
  );
}

/**
 * A call that had started when the engine stopped (an interrupt, a crash): not run again, since it may
 * have done its work; what the dead engine left of it running is stopped, and the model is told so.
 */
export async function answerLostCall(context: RunContext, { call, iteration }: PendingCall, emit: Emit): Promise<void> {
  emit(resultEvent(iteration, call, stoppedWhileRunning(call, await stopOrphans(context, call))));
}
