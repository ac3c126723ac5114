import { buildInvocation, DEFAULT_TOOL_TIMEOUT_MS, ToolArgumentError, type ExpandedTool, type Invocation } from '@delta/tool-expander';
import { hiddenPathsNote, pathInside, runCommand, type CommandLauncher, type RunSandbox } from '@delta/command-runner';
import { DeltaError, MAX_JSON_DEPTH, nestsDeeperThan } from '@delta/errors';
import {
  createToolExecutionRecord,
  finishToolExecutionRecord,
  type ActionResultStatus,
  type RecordedToolCall,
  type RunPaths,
} from '@delta/journal';
import { DEFAULT_TOOL_OUTPUT_BYTES } from './agent-config.js';
import { formatObservation } from './observation.js';
import { environmentForTool } from './model-credentials.js';
import { privateTmpSubAgentNote, subAgentWorkspacesInPrivateTmp } from './private-tmp-sub-agents.js';
import type { RunContext } from './run-context.js';
import { ASK_HUMAN } from './ask-human.js';
import { asksHuman } from './built-in-tools.js';

export interface ToolCallOutcome {
  status: ActionResultStatus;
  observation: string;
  exitCode: number | null;
  /** The io/tool_executions/ directory name, when the tool was started. */
  executionRef?: string;
  /** True when the run was stopped while the tool ran. */
  interrupted: boolean;
}

export interface ToolCallContext {
  tools: readonly ExpandedTool[];
  /** The tools offered besides the agent's own (ask_human, MCP servers' tools), named to a model that calls an unknown one. */
  otherToolNames?: readonly string[];
  paths: RunPaths;
  agentHome: string;
  /** The environment of every tool: never the model credentials. */
  env: Record<string, string>;
  /**
   * The model credentials (see `modelCredentials`), added only to the environment of a tool that
   * declares `pass_model_credentials: true`. Without them such a tool runs without credentials.
   */
  credentials?: Record<string, string>;
  signal?: AbortSignal;
  /** A cap over every tool's own `timeout_ms` (the smaller wins); each tool's limit applies without it. */
  timeoutMs?: number;
  /** agent.yaml's max_tool_output_bytes: what the model is shown of each output stream, unless the tool says. */
  maxOutputBytes?: number;
  /** Starts the tool's process; without it the tool is started by forking this process. */
  launcher?: CommandLauncher | undefined;
  /** The run's sandbox: the tool runs inside it. */
  sandbox?: RunSandbox | undefined;
}

/** What running the run's command tools needs of it. */
export function toolCallContext(context: RunContext): ToolCallContext {
  return {
    tools: context.agent.tools,
    otherToolNames: [...(asksHuman(context.agent) ? [ASK_HUMAN] : []), ...(context.mcp?.tools.map((tool) => tool.name) ?? [])],
    paths: context.paths,
    agentHome: context.agent.home,
    env: context.env,
    credentials: context.credentials,
    signal: context.signal,
    launcher: context.launcher,
    sandbox: context.sandbox,
    ...(context.agent.config.max_tool_output_bytes === undefined ? {} : { maxOutputBytes: context.agent.config.max_tool_output_bytes }),
  };
}

/** Parses the model's argument string; `null` with a reason when it is not a JSON object. */
export function parseToolArguments(raw: string): { args: Record<string, unknown> } | { error: string } {
  if (raw.trim() === '') return { args: {} };
  // Parsed, arguments nested thousands deep overflow every recursive walk after (the journal, redaction).
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    return { error: `the arguments nest more than ${MAX_JSON_DEPTH} levels deep; no tool takes that: ${raw.slice(0, 200)}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { error: `the arguments are not valid JSON (${(error as Error).message}): ${raw.slice(0, 200)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: `the arguments must be a JSON object, got: ${raw.slice(0, 200)}` };
  }
  return { args: value as Record<string, unknown> };
}

export type PreparedToolCall =
  | { kind: 'rejected'; args: Record<string, unknown> | null; observation: string }
  | { kind: 'ready'; args: Record<string, unknown>; invocation: Invocation };

/**
 * Checks one tool call and builds its process invocation. The model's own mistakes (an unknown tool,
 * arguments that are not JSON or do not fit) become observations it can act on, not failures.
 */
export function prepareToolCall(call: RecordedToolCall, context: ToolCallContext): PreparedToolCall {
  if (call.problem !== undefined) return { kind: 'rejected', args: null, observation: `Error: ${call.problem}` };
  const parsed = parseToolArguments(call.arguments);
  const tool = context.tools.find((candidate) => candidate.name === call.name);
  if (!tool) {
    const names = [...context.tools.map((candidate) => candidate.name), ...(context.otherToolNames ?? [])].join(', ') || '(none)';
    return {
      kind: 'rejected',
      args: 'args' in parsed ? parsed.args : null,
      observation: `Error: there is no tool named "${call.name}". The available tools are: ${names}.`,
    };
  }
  if ('error' in parsed) return { kind: 'rejected', args: null, observation: `Error: ${parsed.error}` };
  try {
    // Under an image the workspace is at its workdir: ${CWD} names it there.
    const cwd = context.sandbox ? pathInside(context.sandbox.policy, context.paths.workDir) : context.paths.workDir;
    const invocation = buildInvocation(tool, parsed.args, { AGENT_HOME: context.agentHome, CWD: cwd });
    return { kind: 'ready', args: parsed.args, invocation };
  } catch (error) {
    if (error instanceof ToolArgumentError || DeltaError.isInstance(error)) {
      return { kind: 'rejected', args: parsed.args, observation: `Error: ${error.message}` };
    }
    throw error;
  }
}

/** File times come from a coarser clock than Date.now(); a sub-agent takes far longer than this to start. */
const CLOCK_SLACK_MS = 20;

/**
 * Runs a prepared call in the workspace, recording it under io/tool_executions/. The tool's own
 * `timeout_ms` stops its whole process group; only a tool that opts in gets the model credentials.
 */
export async function executeToolCall(call: RecordedToolCall, invocation: Invocation, context: ToolCallContext): Promise<ToolCallOutcome> {
  const tool = context.tools.find((candidate) => candidate.name === call.name);
  const timeoutMs = Math.min(tool?.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS, context.timeoutMs ?? Number.POSITIVE_INFINITY);
  const record = createToolExecutionRecord(context.paths, call.id, invocation.commandLine);
  const hitBefore = context.sandbox?.limits.hit ?? [];
  const startedAt = Date.now();
  const result = await runCommand({
    // Who is running, so that a run resumed after a crash can stop a tool the dead engine left behind.
    processFile: record.process,
    file: invocation.file,
    args: invocation.args,
    cwd: context.paths.workDir,
    env: environmentForTool(context.env, tool?.pass_model_credentials === true ? context.credentials : undefined),
    ...(invocation.stdin === undefined ? {} : { stdin: invocation.stdin }),
    stdoutFile: record.stdout,
    stderrFile: record.stderr,
    ...(context.signal ? { signal: context.signal } : {}),
    timeoutMs,
    // Half from the start of each stream and half from its end; the files keep everything.
    captureBytes: Math.ceil((tool?.max_output_bytes ?? context.maxOutputBytes ?? DEFAULT_TOOL_OUTPUT_BYTES) / 2),
    ...(context.launcher ? { launcher: context.launcher } : {}),
    ...(context.sandbox ? { sandbox: context.sandbox } : {}),
  });
  finishToolExecutionRecord(record, result.exitCode, result.durationMs);
  const observation = formatObservation(result, record, context.paths.workDir, { timeoutMs });
  // A failed call that named something under /tmp the sandbox hides: say so, and how to fix it.
  const hidden = result.exitCode !== 0 && context.sandbox ? context.sandbox.hiddenPaths([invocation.file, ...invocation.args]) : [];
  // A sub-agent this call ran with its workspace in the sandbox's /tmp loses it when the run ends: say so, and the fix.
  const lost = context.sandbox ? subAgentWorkspacesInPrivateTmp(context.sandbox.tmpDir, startedAt - CLOCK_SLACK_MS) : [];
  const notes = [
    ...(hidden.length === 0 ? [] : [hiddenPathsNote(hidden)]),
    ...(lost.length === 0 ? [] : [privateTmpSubAgentNote(lost)]),
    ...limitNotes(context.sandbox, hitBefore),
  ];
  return {
    status: result.exitCode === 0 ? 'SUCCESS' : result.startError ? 'ERROR' : 'FAILED',
    observation: [observation, ...notes].join('\n'),
    exitCode: result.exitCode,
    executionRef: record.ref,
    interrupted: result.aborted,
  };
}

/** What the model is told when this call ran into one of the run's limits (the kernel refused a fork, or killed a process). */
function limitNotes(sandbox: RunSandbox | undefined, before: readonly string[]): string[] {
  if (sandbox === undefined) return [];
  const asked = sandbox.policy.limits ?? {};
  return sandbox.limits.hit
    .filter((limit) => !before.includes(limit))
    .map((limit) =>
      limit === 'memoryBytes'
        ? `Note: the run reached its memory limit (${Math.round((asked.memoryBytes ?? 0) / 1048576)} MiB for all its processes): the kernel killed a process.`
        : limit === 'layerBytes'
          ? `Note: the run wrote more than its layer limit (${Math.round((asked.layerBytes ?? 0) / 1048576)} MiB outside its workspace): its sandbox was ended, and the run ends.`
          : `Note: the run reached its process limit (${asked.processes} processes and threads at once): a new process was refused.`,
    );
}
