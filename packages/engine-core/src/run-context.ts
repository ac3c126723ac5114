import type { CommandLauncher, RunSandbox } from '@delta/command-runner';
import type { McpServers } from '@delta/mcp';
import type {
  ActionResultEvent,
  AgentFingerprint,
  RecordedToolCall,
  InvocationRequestRecorder,
  JournalEvent,
  JournalWriter,
  MetadataFile,
  NewJournalEvent,
  RunPaths,
} from '@delta/journal';
import type { LoadedAgent } from './load-agent.js';
import { redactSecret } from './redact-secret.js';
import type { AskHumanInteractively } from './ask-human.js';
import type { ModelClient } from '@delta/model-wire';
import type { ModelDelta } from './model-client.js';
import type { EnvironmentRecord } from './tool-environment.js';
import { LIMIT_NAMES } from './sandbox-choice.js';

/** Everything one engine process needs to drive a run. */
export interface RunContext {
  agent: LoadedAgent;
  paths: RunPaths;
  /** The run's journal and its state (`journal.state`): the one owner of both, as this process holds the run's lock. */
  journal: JournalWriter;
  /** Writes io/invocations/<id>/request.json or request.delta.json, remembering the last request of this process. */
  requests: InvocationRequestRecorder;
  /** metadata.json, written from memory by the one engine holding the run's lock. */
  metadata: MetadataFile;
  model: ModelClient;
  /** The environment of tools and stdio MCP servers: agent.yaml's `sandbox.env` allow-list (see toolEnvironment). */
  env: Record<string, string>;
  /** The environment of hooks and `computed_file` generators: the user's, less every secret (see userEnvironment). */
  userEnv: Record<string, string>;
  /** What ENGINE_START records of `env`: the policy and the names, never a value. */
  environmentRecord: EnvironmentRecord;
  /**
   * The model key and the agent's other secrets (runSecrets), redacted from everything the run writes or
   * shows: the journal's events, each request, the io/ records, the logs (see docs/models.md).
   */
  secrets: readonly string[];
  /** Added only to the environment of tools that declare `pass_model_credentials: true`. */
  credentials: Record<string, string>;
  /** Model calls this engine invocation may make. */
  maxIterations: number;
  signal: AbortSignal;
  /** The cost this engine invocation may spend (`maxCost`), if limited. */
  maxCost: number | undefined;
  /** Progress for a person (stderr in the CLI, engine.log always). */
  log: (line: string) => void;
  /** A warning said once per engine invocation (a context file left out is met again at every step). */
  warnOnce: (line: string) => void;
  /** Starts tools and hooks for this engine: the process's shared launcher (see CommandLauncher.shared); undefined when the agent has neither. */
  launcher: CommandLauncher | undefined;
  /** The run's sandbox, every tool call runs inside it; undefined when tools run unsandboxed (or once it has ended). */
  sandbox: RunSandbox | undefined;
  /** The run's MCP servers, started with the run (see startRunMcpServers); undefined when the agent has none. */
  mcp: McpServers | undefined;
  /** Releases the launcher, closes the journal and engine.log; the run's last step. */
  close: () => Promise<void>;
  onEvent: ((event: JournalEvent) => void) | undefined;
  /** Every piece of a streamed model answer, as it arrives. */
  onModelDelta: ((delta: ModelDelta) => void) | undefined;
  /** The number of the next hook run's io/hooks/ directory. */
  hookStep: number;
  /** The limits (sandbox.limits) the run's processes ran into while this engine ran it: `memory`, `processes`, `layer`. */
  limitsHit: Set<string>;
  /** With it, ask_human asks at the terminal (`-i`); without it, the run pauses for input (exit 101). */
  askHuman: AskHumanInteractively | undefined;
  /** A replay with recorded tools: the recorded result of a call, served instead of running it (see EngineOptions). */
  recordedTools: ((call: RecordedToolCall, iteration: number) => ActionResultEvent | undefined) | undefined;
  /** With `pinAgentVersion`: the agent's fingerprint this engine recorded, checked before each model request. */
  pinnedAgent?: AgentFingerprint;
}

/**
 * Where an effect (think, act on a call, ask the human, run a hook) puts each event it produces: the run
 * writer journals it at once, so it is on disk before the effect goes on, and gives it back as written.
 */
export type Emit = (event: NewJournalEvent) => JournalEvent;

/**
 * The run writer, the one place engine-core appends to a run's journal (fork-run copies a journal
 * whole): takes the model key out, appends the event (which advances `context.journal.state`) and tells
 * the listener.
 */
function record(context: RunContext, event: NewJournalEvent): JournalEvent {
  const written = context.journal.append(redactSecret(event, context.secrets));
  context.onEvent?.(written);
  return written;
}

/** The run's writer, handed to the effects by the one engine process that holds the run's lock (driveRun). */
export function runWriter(context: RunContext): Emit {
  return (event) => record(context, event);
}

/**
 * Ends what the run's tools may have left running: its MCP servers, then its sandbox with every process
 * in it. Before the end hooks (which run unsandboxed, with the user's rights, and may look at the
 * workspace) and again when the run closes; it is done once.
 */
export async function stopToolProcesses(context: RunContext): Promise<void> {
  await context.mcp?.close().catch(() => undefined);
  context.mcp = undefined;
  const sandbox = context.sandbox;
  context.sandbox = undefined;
  for (const hit of sandbox?.limits.hit ?? []) context.limitsHit.add(LIMIT_NAMES[hit]);
  await sandbox?.stop().catch(() => undefined);
}
