import { z } from 'zod';
import { PARAMETER_NAME_PATTERN, TOOL_NAME_PATTERN } from './placeholder.js';
import { MAX_TOOL_TIMEOUT_MS } from './execution-settings.js';
import { PARAMETER_TYPES } from './parameter-type.js';

const ParameterValue = z.union([z.string(), z.number(), z.boolean()]);

/** One entry of a tool's `parameters:` block, as a user writes it. */
export const ToolParameter = z.object({
  name: z.string().regex(PARAMETER_NAME_PATTERN),
  /** The JSON type the model must send (default string); the value reaches the program as text either way. */
  type: z.enum(PARAMETER_TYPES).optional(),
  /** The only values allowed, of the parameter's type. */
  enum: z.array(ParameterValue).min(1).optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  inject_as: z.enum(['argument', 'stdin', 'option']).optional(),
  option_name: z.string().min(1).optional(),
  default: ParameterValue.optional(),
  position: z.number().int().min(0).optional(),
  raw: z.boolean().optional(),
});
export type ToolParameter = z.infer<typeof ToolParameter>;

/** The smallest and largest `max_output_bytes`: enough for a line, at most 64 MiB held in memory. */
export const MIN_OUTPUT_BYTES = 64;
export const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** A tool as a user writes it in agent.yaml: exactly one of `exec:`, `shell:` or `command:`. */
export const ToolDefinition = z
  .object({
    name: z.string().regex(TOOL_NAME_PATTERN),
    description: z.string().optional(),
    exec: z.string().min(1).optional(),
    shell: z.string().min(1).optional(),
    command: z.array(z.string()).min(1).optional(),
    parameters: z.array(ToolParameter).optional(),
    stdin: z.string().regex(PARAMETER_NAME_PATTERN).optional(),
    /** Milliseconds before the tool's whole process group is stopped (default DEFAULT_TOOL_TIMEOUT_MS). */
    timeout_ms: z.number().int().positive().max(MAX_TOOL_TIMEOUT_MS).optional(),
    /** Opt-in: the engine's model API key (and base URL) go into this tool's environment. */
    pass_model_credentials: z.boolean().optional(),
    /** Bytes of each of stdout and stderr the model is shown (its first and last halves); the agent's default otherwise. */
    max_output_bytes: z.number().int().min(MIN_OUTPUT_BYTES).max(MAX_OUTPUT_BYTES).optional(),
    /** The author's word that no option of the program can do harm: no argument-injection warning for this tool. */
    allow_option_values: z.boolean().optional(),
  })
  .superRefine((definition, context) => {
    const modes = (['exec', 'shell', 'command'] as const).filter((mode) => definition[mode] !== undefined);
    if (modes.length !== 1) {
      context.addIssue({
        code: 'custom',
        path: modes.length === 0 ? [] : [modes[1] as string],
        message: 'Tool must specify exactly one of: exec, shell, or command',
        params: { modes },
      });
    }
  });
export type ToolDefinition = z.infer<typeof ToolDefinition>;

export const TOOL_DEFINITION_KEYS: readonly string[] = Object.keys(ToolDefinition.shape);
export const TOOL_PARAMETER_KEYS: readonly string[] = Object.keys(ToolParameter.shape);
