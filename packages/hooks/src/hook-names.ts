/** The eight lifecycle hooks (spec 000 section 2.7.3), in the order they can fire in one run. */
export const HOOK_NAMES = [
  'on_iteration_start',
  'pre_llm_request',
  'post_llm_response',
  'pre_tool_execution',
  'post_tool_execution',
  'on_iteration_end',
  'on_error',
  'on_run_end',
] as const;

export type HookName = (typeof HOOK_NAMES)[number];

/** The v1.1 short names (spec 002), still accepted with a deprecation warning. */
export const LEGACY_HOOK_NAMES = {
  pre_llm_req: 'pre_llm_request',
  post_llm_resp: 'post_llm_response',
  pre_tool_exec: 'pre_tool_execution',
  post_tool_exec: 'post_tool_execution',
} as const satisfies Record<string, HookName>;

export type LegacyHookName = keyof typeof LEGACY_HOOK_NAMES;

export function isHookName(value: string): value is HookName {
  return (HOOK_NAMES as readonly string[]).includes(value);
}
