import { z } from 'zod';
import { HOOK_NAMES, LEGACY_HOOK_NAMES, type HookName } from './hook-names.js';

/** How long a hook may run when its definition gives no `timeout_ms`. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/** One hook: an argv run without a shell, and how long it may take (default 30000 ms). */
export const HookDefinition = z.strictObject({
  command: z.array(z.string()).min(1),
  timeout_ms: z.number().int().positive().optional(),
});
export type HookDefinition = z.infer<typeof HookDefinition>;

/** hooks.yaml after normalisation: only the eight current names. */
export const HooksConfig = z.strictObject({
  pre_llm_request: HookDefinition.optional(),
  post_llm_response: HookDefinition.optional(),
  pre_tool_execution: HookDefinition.optional(),
  post_tool_execution: HookDefinition.optional(),
  on_error: HookDefinition.optional(),
  on_run_end: HookDefinition.optional(),
  on_iteration_start: HookDefinition.optional(),
  on_iteration_end: HookDefinition.optional(),
});
export type HooksConfig = z.infer<typeof HooksConfig>;

const hookEntries = Object.fromEntries(
  [...HOOK_NAMES, ...Object.keys(LEGACY_HOOK_NAMES)].map((name) => [name, HookDefinition.optional()]),
) as Record<HookName | keyof typeof LEGACY_HOOK_NAMES, z.ZodOptional<typeof HookDefinition>>;

/** What a hooks.yaml (or a legacy `lifecycle_hooks` block) may contain before the short names are mapped. */
export const HooksFileEntries = z.strictObject(hookEntries);
export type HooksFileEntries = z.infer<typeof HooksFileEntries>;

/** hooks.yaml as written: the hooks at the top level, or (as spec 000's comment reads) under `lifecycle_hooks:`. */
export const HooksFile = z.strictObject({ ...hookEntries, lifecycle_hooks: HooksFileEntries.optional() });
