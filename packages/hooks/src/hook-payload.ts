import type { HookInputs } from './hook-directory.js';
import type { HookName } from './hook-names.js';

/**
 * `input/payload.dat` (spec 002 §6.4.1, "main data payload"): for a hook that can override, exactly what it
 * may override, in the override's format, so copying it to `output/payload_override.dat` changes nothing:
 * the request body (pre_llm_request), the call's arguments (pre_tool_execution), the observation as text
 * (post_tool_execution). Any other hook gets its main input as JSON: the response, the error, or else the
 * facts of `context.json`.
 */
export function hookPayload(name: HookName, inputs: HookInputs, context: Record<string, unknown>, toolResult: string | undefined): string {
  switch (name) {
    case 'pre_llm_request':
      return json(inputs.proposed_payload ?? {});
    case 'pre_tool_execution':
      return json(inputs.tool_call?.arguments ?? {});
    case 'post_tool_execution':
      return observationOf(inputs.tool_result) ?? toolResult ?? '';
    case 'post_llm_response':
      return json(inputs.response ?? context);
    case 'on_error':
      return json(inputs.error ?? context);
    default:
      return json(context);
  }
}

function observationOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const observation = (result as { observation?: unknown }).observation;
  return typeof observation === 'string' ? observation : undefined;
}

/** The same form as the other JSON files of `input/`. */
function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
