import { runHook, type HookName, type HookResult, type RunHookOptions } from '@delta/hooks';
import type { RunState } from '@delta/journal';
import { redactSecret } from './redact-secret.js';
import type { Emit, RunContext } from './run-context.js';

export type HookCall = Pick<RunHookOptions, 'toolName' | 'toolResult' | 'errorMessage' | 'context' | 'inputs'> & {
  iteration: number;
  /** For on_run_end: a signal of its own, since the run's may already be aborted. */
  signal?: AbortSignal;
};

function hookInputs(call: HookCall): Partial<HookCall> {
  const { toolResult, errorMessage, context, inputs } = call;
  return { toolResult, errorMessage, context, inputs };
}

/** The next hook step: one more than the hook runs already in the journal (so resumed runs never reuse a directory). */
export function firstHookStep(state: RunState): number {
  return state.hookRuns + 1;
}

/**
 * Runs one lifecycle hook if the agent configures it, and emits HOOK_EXECUTION_AUDIT with its status and
 * io_path_ref. Undefined when the hook is not configured.
 */
export async function invokeHook(context: RunContext, name: HookName, call: HookCall, emit: Emit): Promise<HookResult | undefined> {
  const definition = context.agent.hooks[name];
  if (!definition) return undefined;
  const step = context.hookStep;
  context.hookStep += 1;
  // What a hook is given is written under io/hooks/: the model's response, the payload, an error, without the key.
  call = { ...call, ...redactSecret(hookInputs(call), context.secrets) };
  const result = await runHook({
    name,
    definition,
    step,
    hooksDir: context.paths.hooksDir,
    agentHome: context.agent.home,
    cwd: context.paths.workDir,
    env: context.userEnv,
    run: {
      runId: context.paths.runId,
      runDir: context.paths.runDir,
      journalPath: context.paths.journal,
      iterationCount: call.iteration,
    },
    ...(call.toolName === undefined ? {} : { toolName: call.toolName }),
    ...(call.toolResult === undefined ? {} : { toolResult: call.toolResult }),
    ...(call.errorMessage === undefined ? {} : { errorMessage: call.errorMessage }),
    ...(call.context === undefined ? {} : { context: call.context }),
    ...(call.inputs === undefined ? {} : { inputs: call.inputs }),
    signal: call.signal ?? context.signal,
    ...(context.launcher ? { launcher: context.launcher } : {}),
  });
  emit({
    type: 'HOOK_EXECUTION_AUDIT',
    iteration: call.iteration,
    hook_name: name,
    status: result.status,
    io_path_ref: result.ioPathRef,
  });
  if (result.status === 'FAILED') context.log(`[${call.iteration}] hook ${name} failed: ${result.failure ?? 'unknown reason'}`);
  for (const warning of result.warnings) context.log(`[${call.iteration}] hook ${name}: ${warning}`);
  return result;
}
