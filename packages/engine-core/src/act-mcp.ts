import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { diskWrite } from '@delta/errors';
import { gateDecision, observationOverride } from '@delta/hooks';
import type { McpToolDefinition } from '@delta/mcp';
import { ToolArgumentError } from '@delta/tool-expander';
import { createToolExecutionRecord, finishToolExecutionRecord, type JournalEvent, type RecordedToolCall } from '@delta/journal';
import { INTERRUPTED_BEFORE_START, resultEvent } from './action-result.js';
import { DEFAULT_TOOL_OUTPUT_BYTES } from './agent-config.js';
import { invokeHook } from './lifecycle-hooks.js';
import { checkMcpArguments } from './mcp-arguments.js';
import { boundMcpText } from './mcp-observation.js';
import type { Emit, RunContext } from './run-context.js';
import { redactSecret } from './redact-secret.js';
import { parseToolArguments } from './run-tool-call.js';
import { summarise } from './summarise.js';

/** The observation for arguments that do not fit the tool's input schema, or undefined when they fit. */
function argumentProblem(tool: McpToolDefinition, args: Record<string, unknown>): string | undefined {
  try {
    checkMcpArguments(tool, args);
    return undefined;
  } catch (error) {
    if (error instanceof ToolArgumentError) return `Error: ${error.message}`;
    throw error;
  }
}

/**
 * One call of an MCP server's tool, emitted as any tool call is: ACTION_REQUEST, the pre_tool_execution
 * gate, the call, post_tool_execution, ACTION_RESULT. io/tool_executions/<id>/ keeps the request sent
 * (request.json), the server's response (response.json) and the text given to the model (observation.txt).
 */
export async function runMcpCall(context: RunContext, iteration: number, call: RecordedToolCall, emit: Emit): Promise<JournalEvent> {
  const mcp = context.mcp!;
  const tool = mcp.find(call.name)!;
  const commandLine = `mcp ${tool.serverName} ${tool.toolName}`;
  const parsed = call.problem === undefined ? parseToolArguments(call.arguments) : { error: call.problem };
  let args = 'args' in parsed ? parsed.args : null;
  emit({
    type: 'ACTION_REQUEST',
    iteration,
    action_id: call.id,
    tool_name: call.name,
    tool_args: args,
    resolved_command: commandLine,
  });
  if (context.signal.aborted) return emit(resultEvent(iteration, call, INTERRUPTED_BEFORE_START));
  if (args === null) {
    const observation = `Error: ${'error' in parsed ? parsed.error : 'the arguments are not a JSON object'}`;
    context.log(`[${iteration}] ✗ ${call.name}: ${summarise(observation)}`);
    return emit(resultEvent(iteration, call, observation));
  }

  const invalid = argumentProblem(tool, args);
  if (invalid !== undefined) {
    context.log(`[${iteration}] ✗ ${call.name}: ${summarise(invalid)}`);
    return emit(resultEvent(iteration, call, invalid));
  }

  const gate = await invokeHook(
    context,
    'pre_tool_execution',
    { iteration, toolName: call.name, inputs: { tool_call: { name: call.name, arguments: args, action_id: call.id } } },
    emit,
  );
  if (gate) {
    const decision = gateDecision(gate);
    if (!decision.run) {
      const blocked = decision.reason ?? 'Blocked by the pre_tool_execution hook.';
      context.log(`[${iteration}] ✗ ${call.name}: ${summarise(blocked)}`);
      return emit(resultEvent(iteration, call, blocked, { blocked_by: gate.ioPathRef }));
    }
    if (decision.args) {
      args = decision.args;
      const rewritten = argumentProblem(tool, args);
      if (rewritten !== undefined) {
        const observation = `${rewritten} (the arguments pre_tool_execution rewrote)`;
        context.log(`[${iteration}] ✗ ${call.name}: ${summarise(observation)}`);
        return emit(resultEvent(iteration, call, observation));
      }
      emit({
        type: 'SYSTEM_MESSAGE',
        iteration,
        level: 'INFO',
        content: `pre_tool_execution rewrote the arguments of ${call.name} (${call.id}) to ${JSON.stringify(args)}`,
      });
    }
  }

  const execution = createToolExecutionRecord(context.paths, call.id, commandLine);
  const files = {
    request: join(execution.dir, 'request.json'),
    response: join(execution.dir, 'response.json'),
    observation: join(execution.dir, 'observation.txt'),
  };
  context.log(`[${iteration}] → ${call.name} ${summarise(JSON.stringify(args), 80)}`);
  const started = performance.now();
  // A server may quote a credential it was given (its Authorization header, say): its records hold none.
  const outcome = redactSecret(await mcp.call(call.name, args, context.signal), context.secrets);
  const durationMs = performance.now() - started;
  context.log(`[${iteration}] ← ${call.name}: ${outcome.interrupted ? 'interrupted' : outcome.status}`);
  const maxBytes = context.agent.config.max_tool_output_bytes ?? DEFAULT_TOOL_OUTPUT_BYTES;
  const observation = boundMcpText(outcome.text, maxBytes, relative(context.paths.workDir, files.response));
  diskWrite(files.request, () => writeFileSync(files.request, `${JSON.stringify(outcome.request, null, 2)}\n`));
  diskWrite(files.response, () => writeFileSync(files.response, `${JSON.stringify(outcome.response, null, 2)}\n`));
  diskWrite(files.observation, () => writeFileSync(files.observation, observation));
  finishToolExecutionRecord(execution, null, durationMs);

  const post = await invokeHook(
    context,
    'post_tool_execution',
    {
      iteration,
      toolName: call.name,
      toolResult: observation,
      inputs: {
        tool_call: { name: call.name, arguments: args, action_id: call.id },
        tool_result: { status: outcome.status, exit_code: null, observation, execution_ref: execution.ref },
      },
    },
    emit,
  );
  const override = post ? observationOverride(post) : undefined;
  return emit(
    resultEvent(iteration, call, override ?? observation, {
      status: outcome.status,
      execution_ref: execution.ref,
      ...(override !== undefined && post ? { observation_overridden_by: post.ioPathRef } : {}),
    }),
  );
}
