import type { ToolDefinition } from './tool-definition.js';

/** How long a tool may run when its definition sets no `timeout_ms`: two minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** The largest `timeout_ms` a timer can hold (2^31 - 1 ms, about 24.8 days); larger values would fire at once. */
export const MAX_TOOL_TIMEOUT_MS = 2_147_483_647;

/** How the engine runs a tool, whatever its syntax: its time limit and whether it gets the model credentials. */
export function executionSettings(
  definition: Pick<ToolDefinition, 'timeout_ms' | 'pass_model_credentials' | 'max_output_bytes' | 'allow_option_values'>,
): {
  timeout_ms: number;
  pass_model_credentials: boolean;
  max_output_bytes?: number;
  allow_option_values?: true;
} {
  return {
    timeout_ms: definition.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS,
    pass_model_credentials: definition.pass_model_credentials === true,
    ...(definition.max_output_bytes === undefined ? {} : { max_output_bytes: definition.max_output_bytes }),
    ...(definition.allow_option_values === true ? { allow_option_values: true as const } : {}),
  };
}
