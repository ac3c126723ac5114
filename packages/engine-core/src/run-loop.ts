import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { buildContextMessages } from '@delta/context-builder';
import { toFunctionTool } from '@delta/tool-expander';
import {
  createInvocationId,
  JournalReader,
  updateMetadata,
  writeInvocationRequest,
  writeInvocationResult,
  type RecordedToolCall,
} from '@delta/journal';
import { join } from 'node:path';
import { ENGINE_LLM_KEYS } from './agent-config.js';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import { record, type RunContext } from './run-context.js';
import { executeToolCall, prepareToolCall } from './run-tool-call.js';
import { budgetExhausted, countIterations, isFinalAnswer } from './stop-conditions.js';

const INTERRUPTED_BEFORE_START = '[not run: the run was interrupted before this tool call started]';

function requestParameters(context: RunContext): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context.agent.config.llm)) {
    if (!ENGINE_LLM_KEYS.includes(key)) parameters[key] = value;
  }
  return parameters;
}

function summarise(text: string, limit = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit)}...` : flat;
}

/** Calls the model once, recording the exact request and the response under io/invocations/. */
async function think(context: RunContext, iteration: number, payload: ChatCompletionCreateParamsNonStreaming) {
  const invocationId = createInvocationId(iteration);
  const startedAt = new Date();
  const started = performance.now();
  const base = { invocation_id: invocationId, iteration, model: payload.model, started_at: startedAt.toISOString(), stream: false };
  let response: ChatCompletion;
  try {
    response = await context.model.complete(payload, {
      signal: context.signal,
      onRequestBody: (body) => writeInvocationRequest(context.paths, invocationId, body),
    });
  } catch (error) {
    writeInvocationResult(context.paths, invocationId, undefined, {
      ...base,
      duration_ms: Math.round(performance.now() - started),
      status: 'FAILED',
      error: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
  const usage = response.usage
    ? {
        prompt_tokens: response.usage.prompt_tokens,
        completion_tokens: response.usage.completion_tokens,
        total_tokens: response.usage.total_tokens,
      }
    : undefined;
  writeInvocationResult(context.paths, invocationId, response, {
    ...base,
    duration_ms: Math.round(performance.now() - started),
    status: 'SUCCESS',
    ...(usage ? { token_usage: usage } : {}),
  });
  return { invocationId, response, usage };
}

/**
 * The think-act-observe loop. Before every model call the conversation is rebuilt from the journal;
 * nothing of it is kept in memory between iterations (the reader only caches parsed lines, and returns
 * exactly what a fresh read would).
 */
export async function runLoop(context: RunContext): Promise<RunOutcome> {
  const reader = new JournalReader(context.paths.journal);
  const firstIteration = countIterations(reader.read()) + 1;
  const lastAllowed = firstIteration + context.maxIterations - 1;
  const tools = context.agent.tools.map(toFunctionTool);

  for (;;) {
    if (context.signal.aborted) return { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason: 'interrupted by a signal' };
    const events = reader.read();
    const iteration = countIterations(events) + 1;
    if (budgetExhausted(iteration, lastAllowed)) {
      return {
        status: 'INTERRUPTED',
        exitCode: ExitCode.ITERATION_BUDGET,
        reason: `reached the iteration budget (--max-iterations ${context.maxIterations}) before the task was complete`,
      };
    }

    context.log(`[${iteration}] thinking...`);
    const messages = await buildContextMessages({
      manifest: context.agent.context.manifest,
      manifestFile: context.agent.context.file,
      agentHome: context.agent.home,
      cwd: context.paths.workDir,
      runId: context.paths.runId,
      journalPath: context.paths.journal,
      events,
      env: context.env,
      recordDirectory: (index, source) =>
        join(context.paths.ioDir, 'context', `${String(iteration).padStart(4, '0')}_${source.id ?? `source_${index}`}`),
      signal: context.signal,
    });
    const payload = {
      ...requestParameters(context),
      model: context.agent.config.llm.model,
      messages,
      ...(tools.length > 0 ? { tools } : {}),
    } as ChatCompletionCreateParamsNonStreaming;

    const { invocationId, response, usage } = await think(context, iteration, payload);
    const choice = response.choices[0];
    const message = choice?.message;
    const toolCalls: RecordedToolCall[] = (message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    );
    record(context, {
      type: 'THOUGHT',
      iteration,
      content: message?.content ?? null,
      tool_calls: toolCalls,
      llm_invocation_ref: invocationId,
      finish_reason: choice?.finish_reason ?? null,
      ...(usage ? { usage } : {}),
    });
    updateMetadata(context.paths.metadata, { iterations: iteration });
    if (message?.content) context.log(`[${iteration}] ${summarise(message.content)}`);

    if (isFinalAnswer(toolCalls.length)) {
      return { status: 'COMPLETED', exitCode: ExitCode.COMPLETED, finalAnswer: message?.content ?? '' };
    }
    await act(context, iteration, toolCalls);
  }
}

/** Runs each tool call in order; every call gets exactly one ACTION_RESULT, whatever happens. */
async function act(context: RunContext, iteration: number, toolCalls: RecordedToolCall[]): Promise<void> {
  const toolContext = {
    tools: context.agent.tools,
    paths: context.paths,
    agentHome: context.agent.home,
    env: context.env,
    signal: context.signal,
  };
  for (const call of toolCalls) {
    const prepared = prepareToolCall(call, toolContext);
    record(context, {
      type: 'ACTION_REQUEST',
      iteration,
      action_id: call.id,
      tool_name: call.name,
      tool_args: prepared.args,
      ...(prepared.kind === 'ready' ? { resolved_command: prepared.invocation.commandLine } : {}),
    });
    if (context.signal.aborted) {
      record(context, {
        type: 'ACTION_RESULT',
        iteration,
        action_id: call.id,
        tool_name: call.name,
        status: 'ERROR',
        observation_content: INTERRUPTED_BEFORE_START,
        exit_code: null,
      });
      continue;
    }
    if (prepared.kind === 'rejected') {
      context.log(`[${iteration}] ✗ ${call.name}: ${summarise(prepared.observation)}`);
      record(context, {
        type: 'ACTION_RESULT',
        iteration,
        action_id: call.id,
        tool_name: call.name,
        status: 'ERROR',
        observation_content: prepared.observation,
        exit_code: null,
      });
      continue;
    }
    context.log(`[${iteration}] → ${call.name} ${summarise(call.arguments, 80)}`);
    const outcome = await executeToolCall(call, prepared.invocation, toolContext);
    context.log(`[${iteration}] ← ${call.name}: ${outcome.interrupted ? 'interrupted' : `exit ${outcome.exitCode ?? 'none'}`}`);
    record(context, {
      type: 'ACTION_RESULT',
      iteration,
      action_id: call.id,
      tool_name: call.name,
      status: outcome.status,
      observation_content: outcome.observation,
      exit_code: outcome.exitCode,
      ...(outcome.executionRef ? { execution_ref: outcome.executionRef } : {}),
    });
  }
}
