import type { HookResult } from './run-hook.js';

/** What the engine does with a tool call after its pre_tool_execution hook. */
export interface GateDecision {
  /** False: the tool does not run and `reason` becomes the observation the model sees. */
  run: boolean;
  reason?: string;
  /** The arguments to run the tool with instead of the model's, when the hook rewrote them. */
  args?: Record<string, unknown>;
}

const STDERR_IN_REASON = 500;

/**
 * The pre_tool_execution gate fails closed (spec resolution 4): a non-zero exit, a timeout, `{"skip": true}`
 * in control.json, or a control.json or tool_args.json it cannot read all mean the tool does not run.
 */
export function gateDecision(result: HookResult): GateDecision {
  if (result.status === 'FAILED') {
    const said = (result.stderr.head + result.stderr.tail).trim().slice(0, STDERR_IN_REASON);
    return {
      run: false,
      reason: `Blocked by the pre_tool_execution hook: ${result.failure ?? 'it failed'}${said === '' ? '' : `: ${said}`}`,
    };
  }
  if (result.gateProblem !== undefined) {
    return { run: false, reason: `Blocked by the pre_tool_execution hook: ${result.gateProblem}` };
  }
  const control = result.outputs.control;
  if (control?.skip === true) {
    return { run: false, reason: `Blocked by the pre_tool_execution hook: ${control.reason ?? 'it asked to skip this call'}` };
  }
  return result.outputs.toolArgs === undefined ? { run: true } : { run: true, args: result.outputs.toolArgs };
}

/** What the engine sends after its pre_llm_request hook. */
export interface PayloadOverride {
  /** The payload to send instead of the proposed one. */
  payload?: Record<string, unknown>;
  /** Why the proposed payload is sent after all, when the hook failed or wrote an invalid final_payload.json. */
  problem?: string;
}

/**
 * The pre_llm_request payload decision (spec 002 section 8.3): the hook's final_payload.json when it exited 0
 * and the file is valid (or `payload_override.dat`, the spec's generic name); otherwise a problem, and the engine sends the proposed payload and records why.
 * A hook that exits 0 without writing final_payload.json changes nothing and is not a problem.
 */
export function payloadOverride(result: HookResult): PayloadOverride {
  const fallback = 'the unmodified payload is sent';
  if (result.status === 'FAILED') return { problem: `${result.failure ?? 'pre_llm_request hook failed'}; ${fallback}` };
  if (result.outputs.finalPayload !== undefined) return { payload: result.outputs.finalPayload };
  const invalid = result.warnings.find((warning) => /^output\/(final_payload\.json|payload_override\.dat)(?! is ignored)/.test(warning));
  return invalid === undefined ? {} : { problem: `pre_llm_request hook: ${invalid}; ${fallback}` };
}

/** The observation the model sees instead of the tool's, when post_tool_execution wrote one. The logs are untouched. */
export function observationOverride(result: HookResult): string | undefined {
  return result.status === 'SUCCESS' ? result.outputs.observation : undefined;
}
