/**
 * The OpenTelemetry GenAI semantic conventions' names that Delta's spans use, in one file as the
 * conventions advise: they are experimental (status Development) and may be renamed, and this is the one
 * place to follow them. Names as in @opentelemetry/semantic-conventions' incubating entry point.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  requestModel: 'gen_ai.request.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  /** Part of the input tokens, served from the provider's cache. */
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  /** Part of the output tokens, spent reasoning. */
  usageReasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  /** Opt-in content (see docs/tracing.md). */
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  outputMessages: 'gen_ai.output.messages',
} as const;

/** The values of gen_ai.operation.name that Delta's spans have; each span is named after its operation. */
export const GEN_AI_OPERATION = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** Stable, from the core conventions: the class of error a failed span ended with. */
export const ERROR_TYPE = 'error.type';
