import { createRunDirectories, createRunId, runPaths, type RecordedToolCall } from '@delta/journal';
import { createTempDir } from '@delta/testkit';
import { expandTool } from '@delta/tool-expander';
import { executeToolCall, prepareToolCall, type ToolCallContext, type ToolCallOutcome } from './run-tool-call.js';

/** A workspace with run directories, and a context for the given tool definitions. */
export async function toolCallContext(definitions: unknown[], extra: Partial<ToolCallContext> = {}): Promise<ToolCallContext> {
  const workDir = await createTempDir('delta-tool-call-');
  const paths = runPaths(workDir, createRunId());
  createRunDirectories(paths);
  return {
    tools: definitions.map((definition) => expandTool(definition)),
    paths,
    agentHome: workDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SHARED: 'yes' },
    ...extra,
  };
}

/** Prepares and runs one call exactly as the run loop does. */
export async function callTool(
  context: ToolCallContext,
  name: string,
  args: Record<string, unknown> = {},
  id = `call_${name}`,
): Promise<ToolCallOutcome> {
  const call: RecordedToolCall = { id, name, arguments: JSON.stringify(args) };
  const prepared = prepareToolCall(call, context);
  if (prepared.kind !== 'ready') throw new Error(`the call was rejected: ${prepared.observation}`);
  return executeToolCall(call, prepared.invocation, context);
}
