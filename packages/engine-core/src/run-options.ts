import type { ActionResultEvent, JournalEvent, RecordedToolCall, RunMetadata, RunOrigin, RunPaths } from '@delta/journal';
import type { AskHumanInteractively } from './ask-human.js';
import type { RunOutcome } from './exit-codes.js';
import type { ModelClient } from '@delta/model-wire';
import type { ModelDelta } from './model-client.js';
import type { SandboxOptions } from './sandbox-choice.js';

/** What starting and continuing a run have in common. */
export interface EngineOptions {
  /** Model calls this engine invocation may make before the run stops as INTERRUPTED (exit 3). */
  maxIterations?: number;
  /** A model client of your own; otherwise one is made from `apiKey`/`baseUrl` or the environment. */
  model?: ModelClient;
  /** Retries of a failed model request, over agent.yaml's `llm.max_retries` (not for a client of your own). */
  maxRetries?: number;
  apiKey?: string;
  /**
   * The environment variable `apiKey` was read from (a models file's `api_key_env`), recorded in metadata.json
   * so that `delta continue` reads the key from that same variable. Never the key itself.
   */
  apiKeyName?: string;
  baseUrl?: string;
  /**
   * Variables of `environment` that hold model keys besides the run's own (a models file's `api_key_env`s):
   * no tool, hook or generator gets them, and their values are redacted from the run's records and logs.
   * Recorded (names only) in metadata.json, so that `delta continue`, replay and fork do the same.
   */
  secretVariables?: readonly string[];
  /**
   * More secret values (a queue's address and password, say): no variable holding one reaches a tool, an
   * MCP server, a hook or a generator, and each is redacted from the run's records and logs as a key is.
   */
  secrets?: readonly string[];
  /**
   * The environment the engine reads settings from; tools get from it what agent.yaml's `sandbox.env`
   * allows, hooks and generators all of it but the secrets (default `process.env`).
   */
  environment?: NodeJS.ProcessEnv;
  /** Variables the engine adds, as they are, to the environment of tools, hooks and generators. */
  toolEnv?: Record<string, string>;
  /**
   * The most this engine invocation may spend (estimated from agent.yaml's `llm.pricing`, which it needs),
   * checked before each model call: past it, the run stops as INTERRUPTED (exit 3) and can be continued.
   */
  maxCost?: number;
  /** Wall-clock milliseconds this engine invocation may take; then the run stops as INTERRUPTED (exit 3), as by a signal. */
  timeoutMs?: number;
  /**
   * Wall-clock milliseconds the run may take in all, over every engine invocation (a task's `timeout_sec`):
   * then it stops as INTERRUPTED (exit 3) with `limits_hit: ["time"]`, which a batch takes as its end.
   */
  timeLimitMs?: number;
  /** Aborting stops the running tool's process group and ends the run as INTERRUPTED. */
  signal?: AbortSignal;
  /** Every journal event, as it is written. */
  onEvent?: (event: JournalEvent) => void;
  /** Every piece of a model answer as it streams in (`llm.stream: true`): text, reasoning, a tool call's part. */
  onModelDelta?: (delta: ModelDelta) => void;
  /** Progress lines for a person. */
  onLog?: (line: string) => void;
  /** The sandbox for tools, over agent.yaml's `sandbox:` (the CLI's `--sandbox MODE` and `--no-network`). */
  sandbox?: SandboxOptions;
  /** Ask a person at a terminal for ask_human (the CLI's `-i`); without it the run pauses (exit 101). */
  askHuman?: AskHumanInteractively;
  /**
   * A replay with recorded tools: no tool runs, each call gets the ACTION_RESULT this returns (status,
   * observation, exit code) with no hook around it. A call it has no result for runs as usual.
   */
  recordedTools?: (call: RecordedToolCall, iteration: number) => ActionResultEvent | undefined;
  /** Where this run comes from, recorded in ENGINE_START and metadata.json: a replay or a fork of another run. */
  origin?: { replay_of?: RunOrigin; forked_from?: RunOrigin };
  /**
   * Before each model request, check that the agent's files still have the fingerprint this engine recorded
   * in ENGINE_START; if one changed, the run stops as INTERRUPTED (exit 3) and sends nothing made from
   * another version of the agent (a batch sets it).
   */
  pinAgentVersion?: boolean;
}

export interface RunResult extends RunOutcome {
  runId: string;
  workDir: string;
  paths: RunPaths;
  /** metadata.json as this engine left it: the run's totals (iterations, usage, cost), without reading it back. */
  metadata: RunMetadata;
}
