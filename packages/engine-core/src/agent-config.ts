import { z } from 'zod';
import { McpServerConfig } from '@delta/mcp';
import { MAX_OUTPUT_BYTES, MIN_OUTPUT_BYTES } from '@delta/tool-expander';
import { CHAT_COMPLETION_PARAMETERS, ENGINE_REQUEST_FIELDS } from './llm-parameters.js';
import { SandboxEnvConfig } from './sandbox-env-config.js';
import { SandboxLimitsConfig } from './sandbox-limits-config.js';

/**
 * `llm.pricing:` in agent.yaml: what the provider charges per million tokens, used only to estimate a
 * run's cost in metadata.json and the CLI. The engine knows no prices of its own.
 */
export const LlmPricing = z.strictObject({
  input_per_million: z.number().nonnegative(),
  /** The price of prompt tokens served from the provider's cache; without it they cost the input price. */
  cached_input_per_million: z.number().nonnegative().optional(),
  output_per_million: z.number().nonnegative(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'a three-letter currency code such as USD')
    .default('USD'),
});
export type LlmPricing = z.infer<typeof LlmPricing>;

/**
 * `llm:` in agent.yaml: the model, the Chat Completions parameters the engine knows (sent as written),
 * `extra_body` (merged into the request as written, for what only a particular server knows), and the
 * engine's own settings, which are never sent. Any other key is reported and not sent.
 */
export const LlmConfig = z
  .strictObject({
    model: z.string().min(1),
    ...CHAT_COMPLETION_PARAMETERS,
    extra_body: z.record(z.string(), z.unknown()).optional(),
    max_retries: z.number().int().min(0).max(10).optional(),
    timeout_ms: z.number().int().positive().optional(),
    /** The time one attempt may take in all, its answer read to the end (ten minutes by default). */
    attempt_timeout_ms: z.number().int().positive().optional(),
    /** The cap on one response's size in bytes (32 MiB by default): past it the engine stops reading and the call fails. */
    max_response_bytes: z.number().int().min(1024).optional(),
    pricing: LlmPricing.optional(),
    /** Send the model's reasoning back with its messages in later requests (interleaved-thinking models want it; DeepSeek refuses it). */
    send_reasoning: z.boolean().optional(),
  })
  .superRefine((llm, context) => {
    for (const key of Object.keys(llm.extra_body ?? {})) {
      if (ENGINE_REQUEST_FIELDS.includes(key)) {
        context.addIssue({ code: 'custom', path: ['extra_body', key], message: `"${key}" is filled in by the engine, not by extra_body` });
      } else if (key in llm) {
        context.addIssue({
          code: 'custom',
          path: ['extra_body', key],
          message: `"${key}" is set both in llm: and in llm.extra_body; keep one`,
        });
      }
    }
  });
export type LlmConfig = z.infer<typeof LlmConfig>;

/**
 * `sandbox:` in agent.yaml: how the run's tools are confined (see docs/security.md). Without it:
 * workspace-write with the network on, when bubblewrap is available.
 */
export const SandboxConfig = z.strictObject({
  mode: z.enum(['workspace-write', 'read-only', 'off']).optional(),
  network: z.boolean().optional(),
  /** More paths tools may write (relative ones are taken from the workspace); they must exist. */
  writable_paths: z.array(z.string().min(1)).optional(),
  /** The environment of tools, stdio MCP servers and command graders (core by default; docs/configuration.md). */
  env: SandboxEnvConfig.optional(),
  /** What one run may use: memory, processes, CPUs, and an image run's own layer (docs/environments.md). */
  limits: SandboxLimitsConfig.optional(),
  /** An OCI image as the tools' root: a layout directory (relative to the agent), an archive, or a registry reference. */
  image: z.string().min(1).optional(),
  /** Where the workspace is inside the image (default: its WorkingDir, else /workspace). */
  workdir: z.string().min(1).optional(),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** agent.yaml (spec 000 section 2.7.2). Tools are validated one by one by @delta/tool-expander. */
export const AgentConfig = z.strictObject({
  name: z.string().min(1),
  version: z.string().optional(),
  description: z.string().optional(),
  llm: LlmConfig,
  system_prompt: z.string().min(1).optional(),
  imports: z.array(z.string().min(1)).default([]),
  tools: z.array(z.unknown()).default([]),
  /** MCP servers whose tools are offered as mcp__<server>__<tool> (docs/mcp.md). */
  mcp_servers: z.array(McpServerConfig).default([]),
  max_iterations: z.number().int().positive().optional(),
  /** false: the model is not offered ask_human, so an unattended run never stops to wait for a person (101). */
  ask_human: z.boolean().optional(),
  /**
   * The command that scores a finished run for `delta batch` and `delta grade` when they are given no
   * --grader (run with sh in the run's workspace; DELTA_AGENT_HOME names this directory). The engine itself never runs it.
   */
  grader: z.string().min(1).optional(),
  /** Bytes of each of a tool's stdout and stderr the model is shown (first and last halves); a tool's own max_output_bytes wins. */
  max_tool_output_bytes: z.number().int().min(MIN_OUTPUT_BYTES).max(MAX_OUTPUT_BYTES).optional(),
  lifecycle_hooks: z.unknown().optional(),
  sandbox: SandboxConfig.optional(),
});
export type AgentConfig = z.infer<typeof AgentConfig>;

/** Keys of `llm:` that configure the engine and are not sent to the model as they are. */
export const ENGINE_LLM_KEYS: readonly string[] = [
  'extra_body',
  'max_retries',
  'timeout_ms',
  'attempt_timeout_ms',
  'max_response_bytes',
  'pricing',
  'send_reasoning',
];

export const DEFAULT_MAX_ITERATIONS = 30;

/** What the model is shown of each output stream of a tool by default: its first and last 64 KiB. */
export const DEFAULT_TOOL_OUTPUT_BYTES = 128 * 1024;

/** A file listed under `imports:` (spec 000 section 2.7.4): tools, MCP servers, and possibly imports of its own. */
export const ImportedToolsFile = z.strictObject({
  imports: z.array(z.string().min(1)).optional(),
  tools: z.array(z.unknown()).optional(),
  mcp_servers: z.array(McpServerConfig).optional(),
});
export type ImportedToolsFile = z.infer<typeof ImportedToolsFile>;
