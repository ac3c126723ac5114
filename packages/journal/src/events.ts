import { z } from 'zod';

/** The run statuses of spec 000 section 2.1.4. */
export const RunStatus = z.enum(['RUNNING', 'WAITING_FOR_INPUT', 'COMPLETED', 'FAILED', 'INTERRUPTED']);
export type RunStatus = z.infer<typeof RunStatus>;

const envelope = {
  seq: z.number().int().positive(),
  timestamp: z.string(),
};

/** A tool call as the model made it; `arguments` is the raw string the model sent. */
export const RecordedToolCall = z.object({
  /** The id used everywhere in the conversation: the server's, or one the engine assigned. */
  id: z.string(),
  name: z.string(),
  /** The arguments as JSON text, as sent back to the model. */
  arguments: z.string(),
  /** Present when the engine assigned `id`: the server's id (null when it sent none, or an empty or repeated one). */
  server_id: z.string().nullable().optional(),
  /** `object` when the server sent the arguments as a JSON object (io/invocations keeps the original). */
  arguments_type: z.literal('object').optional(),
  /** The call could not be run as sent (no function, no name): what the model is told as its result. */
  problem: z.string().optional(),
  /** What the server attached to the call besides id, type and function (Gemini's `extra_content`): sent back with it. */
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type RecordedToolCall = z.infer<typeof RecordedToolCall>;

/** Token counts as the server reported them; the two details only when it reported them. */
export const TokenUsage = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  /** Prompt tokens served from the provider's cache (`prompt_tokens_details.cached_tokens`); part of prompt_tokens. */
  cached_tokens: z.number().optional(),
  /** Completion tokens spent reasoning (`completion_tokens_details.reasoning_tokens`); part of completion_tokens. */
  reasoning_tokens: z.number().optional(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** Where a run came from when it is a fork or a replay of another: that run, by workspace and id. */
export const RunOrigin = z.looseObject({
  run_id: z.string(),
  work_dir: z.string(),
  /** A fork: the source's events through this iteration were copied, and its workspace rebuilt to match. */
  iteration: z.number().int().nonnegative().optional(),
  /** A replay: whether tools ran for real or their recorded observations were served. */
  tools: z.enum(['live', 'recorded']).optional(),
});
export type RunOrigin = z.infer<typeof RunOrigin>;

/** The workspace as an engine found it: paths, sizes and content hashes, bounded (see docs/reproducibility.md). */
export const WorkspaceManifest = z.looseObject({
  entries: z.array(
    z.looseObject({
      path: z.string(),
      type: z.enum(['file', 'link', 'dir']),
      size: z.number().optional(),
      sha256: z.string().optional(),
      target: z.string().optional(),
    }),
  ),
  complete: z.boolean(),
  omitted: z.number().int().nonnegative(),
});
export type WorkspaceManifest = z.infer<typeof WorkspaceManifest>;

/**
 * An agent's version: every file that defines it (agent.yaml, its imports, system_prompt.md, context.yaml,
 * hooks.yaml, the scripts its tools, hooks and generators name), each by its path relative to the agent
 * directory and its sha256, sorted by path; `sha256` is the hash of that list (see docs/experiments.md).
 */
export const AgentFingerprint = z.looseObject({
  sha256: z.string(),
  files: z.array(z.looseObject({ path: z.string(), sha256: z.string() })),
});
export type AgentFingerprint = z.infer<typeof AgentFingerprint>;

export const EngineStartEvent = z.looseObject({
  ...envelope,
  type: z.literal('ENGINE_START'),
  run_id: z.string(),
  agent_home: z.string(),
  work_dir: z.string(),
  agent_name: z.string().optional(),
  model: z.string().optional(),
  max_iterations: z.number().optional(),
  engine_version: z.string().optional(),
  resumed: z.boolean().optional(),
  /** The effective configuration: agent.yaml after imports, defaults and overrides, and the endpoint (never a key). */
  config: z.record(z.string(), z.unknown()).optional(),
  workspace: WorkspaceManifest.optional(),
  forked_from: RunOrigin.optional(),
  replay_of: RunOrigin.optional(),
  /**
   * The sandbox this engine's tool calls ran in (`mode: off` with a note when the default could not be had),
   * its limits (asked for, and how each is held or why not) and its image (absent from older journals).
   */
  sandbox: z
    .looseObject({
      mode: z.string(),
      network: z.boolean(),
      note: z.string().optional(),
      limits: z.record(z.string(), z.unknown()).optional(),
      image: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  /**
   * The environment this engine's tools and MCP servers got (agent.yaml's `sandbox.env`): its `inherit`, the
   * names given and the names kept back as secrets; never a value (absent from older journals).
   */
  environment: z.looseObject({ inherit: z.string(), names: z.array(z.string()), withheld: z.array(z.string()) }).optional(),
  /** The agent's files as this engine found them (absent before 0.2: older journals still read). */
  agent_fingerprint: AgentFingerprint.optional(),
});

export const UserMessageEvent = z.looseObject({
  ...envelope,
  type: z.literal('USER_MESSAGE'),
  iteration: z.number().int().nonnegative().optional(),
  content: z.string(),
});

export const ThoughtEvent = z.looseObject({
  ...envelope,
  type: z.literal('THOUGHT'),
  iteration: z.number().int().positive(),
  content: z.string().nullable(),
  tool_calls: z.array(RecordedToolCall).default([]),
  llm_invocation_ref: z.string(),
  /** How long the model call took in milliseconds, retries included; it ended at this event's timestamp. Absent before 0.2. */
  duration_ms: z.number().nonnegative().optional(),
  finish_reason: z.string().nullable().optional(),
  usage: TokenUsage.optional(),
  /** The model's reasoning as text (`reasoning_content` or `reasoning` of the message), when the server sent any. */
  reasoning: z.string().optional(),
  /** Which field the reasoning came in, so that it can be sent back under that name (`llm.send_reasoning`). */
  reasoning_field: z.enum(['reasoning_content', 'reasoning']).optional(),
  /** OpenRouter's structured reasoning, kept as sent. */
  reasoning_details: z.array(z.unknown()).optional(),
  /** What the engine changed in the server's answer to give it the official shape, one sentence each. */
  normalised: z.array(z.string()).optional(),
});

export const ActionRequestEvent = z.looseObject({
  ...envelope,
  type: z.literal('ACTION_REQUEST'),
  iteration: z.number().int().positive(),
  action_id: z.string(),
  tool_name: z.string(),
  /** The arguments parsed; null when they could not be. Left out when `tool_args_in_thought` is set. */
  tool_args: z.record(z.string(), z.unknown()).nullable().optional(),
  /** The arguments were large: they are stored once, as text, in the THOUGHT's tool call with this action id. */
  tool_args_in_thought: z.literal(true).optional(),
  resolved_command: z.string().optional(),
});

export const ActionResultStatus = z.enum(['SUCCESS', 'FAILED', 'ERROR']);
export type ActionResultStatus = z.infer<typeof ActionResultStatus>;

export const ActionResultEvent = z.looseObject({
  ...envelope,
  type: z.literal('ACTION_RESULT'),
  iteration: z.number().int().positive(),
  action_id: z.string(),
  tool_name: z.string(),
  status: ActionResultStatus,
  observation_content: z.string(),
  exit_code: z.number().int().nullable(),
  execution_ref: z.string().optional(),
});

export const HumanInputRequestEvent = z.looseObject({
  ...envelope,
  type: z.literal('HUMAN_INPUT_REQUEST'),
  iteration: z.number().int().positive(),
  action_id: z.string(),
  prompt: z.string(),
  input_type: z.string().optional(),
  sensitive: z.boolean().optional(),
});

export const HumanInputReceivedEvent = z.looseObject({
  ...envelope,
  type: z.literal('HUMAN_INPUT_RECEIVED'),
  iteration: z.number().int().positive(),
  action_id: z.string(),
  response: z.string(),
});

/** A model request that failed and is tried again, and the wait before it (on a SYSTEM_MESSAGE). */
export const ModelRetry = z.looseObject({
  /** The invocation whose request is sent again. */
  llm_invocation_ref: z.string(),
  /** The attempt that failed (1 for the first). */
  attempt: z.number().int().positive(),
  /** Attempts in all: the retries (`llm.max_retries`, `--retries`) plus the first. */
  attempts: z.number().int().positive(),
  /** How long the engine waits before the next attempt. */
  delay_ms: z.number().nonnegative(),
  /** What the server asked for with `Retry-After` (or `retry-after-ms`), when it did. */
  retry_after_ms: z.number().nonnegative().optional(),
  /** The HTTP status of the failed attempt, when it got one. */
  status: z.number().int().optional(),
  /** Why the attempt failed. */
  reason: z.string(),
});
export type ModelRetry = z.infer<typeof ModelRetry>;

export const SystemMessageEvent = z.looseObject({
  ...envelope,
  type: z.literal('SYSTEM_MESSAGE'),
  iteration: z.number().int().nonnegative().optional(),
  level: z.enum(['INFO', 'WARN', 'ERROR']),
  content: z.string(),
  /** Present when the message reports a retried model request. */
  model_retry: ModelRetry.optional(),
});

export const HookExecutionAuditEvent = z.looseObject({
  ...envelope,
  type: z.literal('HOOK_EXECUTION_AUDIT'),
  iteration: z.number().int().nonnegative().optional(),
  hook_name: z.string(),
  status: z.enum(['SUCCESS', 'FAILED', 'SKIPPED']),
  io_path_ref: z.string(),
});

export const ErrorEvent = z.looseObject({
  ...envelope,
  type: z.literal('ERROR'),
  iteration: z.number().int().nonnegative().optional(),
  error_message: z.string(),
  error_code: z.string().optional(),
  error_details: z.unknown().optional(),
  /** The model endpoint or the network failed, not the conversation: a plain `delta continue` sends the same request again. */
  transient: z.boolean().optional(),
});

export const EngineEndEvent = z.looseObject({
  ...envelope,
  type: z.literal('ENGINE_END'),
  run_id: z.string(),
  status: RunStatus,
  final_iteration: z.number().int().nonnegative(),
  reason: z.string().optional(),
  /** The limits the run's processes ran into while this engine ran it (`memory`, `processes`, `layer`). */
  limits_hit: z.array(z.string()).optional(),
});

export const JournalEvent = z.discriminatedUnion('type', [
  EngineStartEvent,
  UserMessageEvent,
  ThoughtEvent,
  ActionRequestEvent,
  ActionResultEvent,
  HumanInputRequestEvent,
  HumanInputReceivedEvent,
  SystemMessageEvent,
  HookExecutionAuditEvent,
  ErrorEvent,
  EngineEndEvent,
]);
export type JournalEvent = z.infer<typeof JournalEvent>;
export type JournalEventType = JournalEvent['type'];
export type JournalEventOf<T extends JournalEventType> = Extract<JournalEvent, { type: T }>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event before the journal gives it its `seq` and `timestamp`. */
export type NewJournalEvent = DistributiveOmit<JournalEvent, 'seq' | 'timestamp'> & { timestamp?: string };

export type EngineStartEvent = z.infer<typeof EngineStartEvent>;
export type UserMessageEvent = z.infer<typeof UserMessageEvent>;
export type ThoughtEvent = z.infer<typeof ThoughtEvent>;
export type ActionRequestEvent = z.infer<typeof ActionRequestEvent>;
export type ActionResultEvent = z.infer<typeof ActionResultEvent>;
export type HumanInputRequestEvent = z.infer<typeof HumanInputRequestEvent>;
export type HumanInputReceivedEvent = z.infer<typeof HumanInputReceivedEvent>;
export type SystemMessageEvent = z.infer<typeof SystemMessageEvent>;
export type HookExecutionAuditEvent = z.infer<typeof HookExecutionAuditEvent>;
export type ErrorEvent = z.infer<typeof ErrorEvent>;
export type EngineEndEvent = z.infer<typeof EngineEndEvent>;
