import { join } from 'node:path';
import { buildContext, estimateTokens } from '@delta/context-builder';
import { payloadOverride } from '@delta/hooks';
import type { ChatCompletionRequest } from '@delta/model-wire';
import { ENGINE_LLM_KEYS } from './agent-config.js';
import { requestTools } from './built-in-tools.js';
import { invokeHook } from './lifecycle-hooks.js';
import { redactBody } from './redact-secret.js';
import { RequestBodyBuilder } from './request-body.js';
import type { Emit, RunContext } from './run-context.js';
import { sendReasoningBack } from './send-reasoning.js';

/** The request parameters of `llm:` as written (with usage asked of a stream), then `llm.extra_body`'s, as written too. */
function requestParameters(context: RunContext): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context.agent.config.llm)) {
    if (!ENGINE_LLM_KEYS.includes(key)) parameters[key] = value;
  }
  // A stream reports usage only when asked to: asked unless llm.stream_options says otherwise.
  if (parameters.stream === true && parameters.stream_options === undefined) parameters.stream_options = { include_usage: true };
  return { ...parameters, ...context.agent.config.llm.extra_body };
}

/**
 * pre_llm_request may replace the payload (output/final_payload.json). A failing hook or an invalid
 * payload falls back to the proposed one, and the journal says why.
 */
async function applyPreLlmRequest(context: RunContext, iteration: number, proposed: ChatCompletionRequest, emit: Emit) {
  const result = await invokeHook(context, 'pre_llm_request', { iteration, inputs: { proposed_payload: proposed } }, emit);
  if (!result) return proposed;
  const decision = payloadOverride(result);
  if (decision.problem) emit({ type: 'SYSTEM_MESSAGE', iteration, level: 'WARN', content: `pre_llm_request: ${decision.problem}` });
  return (decision.payload as ChatCompletionRequest | undefined) ?? proposed;
}

/** What every request of an engine invocation is made with: the tools it offers, their token cost, and the body builder. */
export interface RequestMaking {
  tools: ReturnType<typeof requestTools>;
  toolTokens: number;
  bodies: RequestBodyBuilder;
}

/** Made once per engine invocation (runLoop): the tools an MCP server offers are known by then. */
export function requestMaking(context: RunContext): RequestMaking {
  const tools = requestTools(context.agent, context.mcp?.tools);
  return {
    tools,
    // The tool definitions travel with every request, so a token budget leaves room for them.
    toolTokens: estimateTokens(JSON.stringify(tools)),
    // Each request is written over the previous one: what did not change is not serialized again.
    bodies: new RequestBodyBuilder(),
  };
}

/**
 * The next request: its payload (after pre_llm_request) and the exact bytes to send. The context it is
 * built from, with the JSON text of each message, is this function's alone: nothing keeps it once the
 * body is built (a large message's text would otherwise stay in memory through the model's answer).
 */
export async function nextRequest(context: RunContext, iteration: number, request: RequestMaking, emit: Emit) {
  const { tools, toolTokens, bodies } = request;
  const built = await buildContext({
    manifest: context.agent.context.manifest,
    manifestFile: context.agent.context.file,
    agentHome: context.agent.home,
    cwd: context.paths.workDir,
    runId: context.paths.runId,
    journalPath: context.paths.journal,
    state: context.journal.state,
    env: context.userEnv,
    reservedTokens: toolTokens,
    recordDirectory: (index, source) =>
      join(context.paths.ioDir, 'context', `${String(iteration).padStart(4, '0')}_${source.id ?? `source_${index}`}`),
    signal: context.signal,
    ...(context.launcher ? { launcher: context.launcher } : {}),
    onNotice: context.warnOnce,
  });
  // messages last: a request then starts with the bytes of the previous one, and io/invocations keeps only what is new.
  // A strict server refuses an empty tools list: an agent with no tools and ask_human off sends none.
  const parameters = { ...requestParameters(context), model: context.agent.config.llm.model, ...(tools.length > 0 ? { tools } : {}) };
  // llm.send_reasoning: the model's earlier reasoning goes back with its messages (off by default: DeepSeek refuses it).
  const sent = context.agent.config.llm.send_reasoning === true ? sendReasoningBack(built, context.journal.state) : built;
  const proposed = { ...parameters, messages: sent.messages } as ChatCompletionRequest;
  const payload = await applyPreLlmRequest(context, iteration, proposed, emit);
  // The proposed payload's body is built from the messages' JSON texts; a hook's own payload is serialized whole.
  const serialized =
    payload === proposed ? bodies.build(parameters, sent.json, sent.messages) : Buffer.from(JSON.stringify(payload), 'utf8');
  // The journal holds no key already; a context file or the system prompt might (a tool wrote it there).
  return { payload, body: redactBody(serialized, context.secrets) };
}
