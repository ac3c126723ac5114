import { buildInvocation, ToolArgumentError, type ExpandedTool, type Invocation } from '@delta/tool-expander';
import { runCommand } from '@delta/command-runner';
import { DeltaError } from '@delta/errors';
import {
  createToolExecutionRecord,
  finishToolExecutionRecord,
  type ActionResultStatus,
  type RecordedToolCall,
  type RunPaths,
} from '@delta/journal';
import { formatObservation } from './observation.js';

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
  paths: RunPaths;
  agentHome: string;
  env: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Parses the model's argument string; `null` with a reason when it is not a JSON object. */
export function parseToolArguments(raw: string): { args: Record<string, unknown> } | { error: string } {
  if (raw.trim() === '') return { args: {} };
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
  const parsed = parseToolArguments(call.arguments);
  const tool = context.tools.find((candidate) => candidate.name === call.name);
  if (!tool) {
    const names = context.tools.map((candidate) => candidate.name).join(', ') || '(none)';
    return {
      kind: 'rejected',
      args: 'args' in parsed ? parsed.args : null,
      observation: `Error: there is no tool named "${call.name}". The available tools are: ${names}.`,
    };
  }
  if ('error' in parsed) return { kind: 'rejected', args: null, observation: `Error: ${parsed.error}` };
  try {
    const invocation = buildInvocation(tool, parsed.args, { AGENT_HOME: context.agentHome, CWD: context.paths.workDir });
    return { kind: 'ready', args: parsed.args, invocation };
  } catch (error) {
    if (error instanceof ToolArgumentError || DeltaError.isInstance(error)) {
      return { kind: 'rejected', args: parsed.args, observation: `Error: ${error.message}` };
    }
    throw error;
  }
}

/** Runs a prepared call in the workspace, recording it under io/tool_executions/. */
export async function executeToolCall(
  call: RecordedToolCall,
  invocation: Invocation,
  context: ToolCallContext,
): Promise<ToolCallOutcome> {
  const record = createToolExecutionRecord(context.paths, call.id, invocation.commandLine);
  const result = await runCommand({
    file: invocation.file,
    args: invocation.args,
    cwd: context.paths.workDir,
    env: context.env,
    ...(invocation.stdin === undefined ? {} : { stdin: invocation.stdin }),
    stdoutFile: record.stdout,
    stderrFile: record.stderr,
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.timeoutMs === undefined ? {} : { timeoutMs: context.timeoutMs }),
  });
  finishToolExecutionRecord(record, result.exitCode, result.durationMs);
  return {
    status: result.exitCode === 0 ? 'SUCCESS' : result.startError ? 'ERROR' : 'FAILED',
    observation: formatObservation(result, record, context.paths.workDir),
    exitCode: result.exitCode,
    executionRef: record.ref,
    interrupted: result.aborted,
  };
}
