import { createHash } from 'node:crypto';
import { addTokenUsage, type ActionRequestEvent, type JournalEvent, type TokenUsage } from '@delta/journal';
import { ERROR_TYPE, GEN_AI, GEN_AI_OPERATION } from './gen-ai-attributes.js';

export type SpanAttributes = Record<string, string | number | boolean | string[]>;

/** One span, as a plain record: what an exporter sends, and what a test compares. */
export interface SpanRecord {
  /** 32 hex digits, the same for every span of a run. */
  traceId: string;
  /** 16 hex digits. */
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: 'internal' | 'client';
  /** Milliseconds since the epoch, from the journal's timestamps. */
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  /** Present when the span ended in error: what went wrong. */
  error?: string;
}

export interface SpanOptions {
  /** Export message content (the model's answers, tool arguments and results). Off unless asked for. */
  content?: boolean;
  /**
   * How long a model call took, for journals whose THOUGHT events do not say (`duration_ms`, added in
   * 0.2): read from io/invocations/<ref>/metadata.json by the caller. Without either, the span has no length.
   */
  callDuration?: (invocationRef: string) => number | undefined;
}

/**
 * Ids derived from the run id and the journal, not drawn at random: exporting a run twice, or live and
 * then again from the journal, gives the same spans, which a backend can recognise as such.
 */
function hexId(text: string, digits: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, digits);
}

function usageAttributes(usage: TokenUsage | undefined): SpanAttributes {
  if (!usage) return {};
  return {
    [GEN_AI.usageInputTokens]: usage.prompt_tokens,
    [GEN_AI.usageOutputTokens]: usage.completion_tokens,
    ...(usage.cached_tokens === undefined ? {} : { [GEN_AI.usageCacheReadInputTokens]: usage.cached_tokens }),
    ...(usage.reasoning_tokens === undefined ? {} : { [GEN_AI.usageReasoningOutputTokens]: usage.reasoning_tokens }),
  };
}

interface OpenEngine {
  spanId: string;
  startMs: number;
  agentName: string;
  model: string | undefined;
  resumed: boolean;
  usage: TokenUsage | undefined;
  lastError?: { code: string; message: string };
}

/**
 * Turns a run's journal events, in order, into spans following the GenAI conventions: one `invoke_agent`
 * span per engine invocation (a run resumed by `delta continue` has one per invocation, all in the run's
 * trace), a `chat {model}` span per model call and an `execute_tool {name}` span per tool call, both
 * children of their invocation's span. `add` returns the spans an event completes, so the same code
 * serves a recorded journal and a live run.
 */
export class RunSpanBuilder {
  private runId: string | undefined;
  private traceId = '';
  private engine: OpenEngine | undefined;
  private readonly requests = new Map<string, ActionRequestEvent>();
  private lastMs = 0;

  constructor(private readonly options: SpanOptions = {}) {}

  add(event: JournalEvent): SpanRecord[] {
    const at = Date.parse(event.timestamp);
    const done: SpanRecord[] = [];
    if (event.type === 'ENGINE_START') {
      // An invocation that never wrote ENGINE_END (the engine was killed) ends where its events end.
      done.push(...this.finish());
      this.runId = event.run_id;
      this.traceId = hexId(`delta-run:${event.run_id}`, 32);
      this.engine = {
        spanId: this.spanId(`engine:${event.seq}`),
        startMs: at,
        agentName: event.agent_name ?? 'agent',
        model: event.model,
        resumed: event.resumed === true,
        usage: undefined,
      };
    } else if (this.engine) {
      const span = this.spanFor(event, this.engine, at);
      if (span) done.push(span);
    }
    this.lastMs = Math.max(this.lastMs, at);
    return done;
  }

  /** The span of an invocation still open (no ENGINE_END yet: a run going on, or one whose engine died). */
  finish(): SpanRecord[] {
    const engine = this.engine;
    if (!engine) return [];
    this.engine = undefined;
    return [this.engineSpan(engine, this.lastMs, { 'delta.run.ended': false })];
  }

  private spanId(key: string): string {
    return hexId(`delta-run:${this.runId}:${key}`, 16);
  }

  private spanFor(event: JournalEvent, engine: OpenEngine, at: number): SpanRecord | undefined {
    switch (event.type) {
      case 'THOUGHT': {
        if (event.usage) engine.usage = addTokenUsage(engine.usage, event.usage);
        const duration = event.duration_ms ?? this.options.callDuration?.(event.llm_invocation_ref) ?? 0;
        const model = engine.model ?? 'unknown';
        const output: SpanAttributes = this.options.content
          ? {
              [GEN_AI.outputMessages]: JSON.stringify([
                {
                  role: 'assistant',
                  parts: [
                    ...(event.content ? [{ type: 'text', content: event.content }] : []),
                    ...event.tool_calls.map((call) => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments })),
                  ],
                  ...(event.finish_reason ? { finish_reason: event.finish_reason } : {}),
                },
              ]),
            }
          : {};
        return {
          traceId: this.traceId,
          spanId: this.spanId(`chat:${event.llm_invocation_ref}`),
          parentSpanId: engine.spanId,
          name: `${GEN_AI_OPERATION.chat} ${model}`,
          kind: 'client',
          startMs: at - duration,
          endMs: at,
          attributes: {
            [GEN_AI.operationName]: GEN_AI_OPERATION.chat,
            [GEN_AI.requestModel]: model,
            [GEN_AI.conversationId]: this.runId!,
            ...(event.finish_reason ? { [GEN_AI.responseFinishReasons]: [event.finish_reason] } : {}),
            ...usageAttributes(event.usage),
            'delta.iteration': event.iteration,
            'delta.invocation_ref': event.llm_invocation_ref,
            ...output,
          },
        };
      }
      case 'ACTION_REQUEST':
        this.requests.set(event.action_id, event);
        return undefined;
      case 'ACTION_RESULT': {
        const request = this.requests.get(event.action_id);
        this.requests.delete(event.action_id);
        const failed = event.status !== 'SUCCESS';
        return {
          traceId: this.traceId,
          spanId: this.spanId(`tool:${event.seq}`),
          parentSpanId: engine.spanId,
          name: `${GEN_AI_OPERATION.executeTool} ${event.tool_name}`,
          kind: 'internal',
          startMs: request ? Date.parse(request.timestamp) : at,
          endMs: at,
          attributes: {
            [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool,
            [GEN_AI.toolName]: event.tool_name,
            [GEN_AI.toolType]: 'function',
            [GEN_AI.toolCallId]: event.action_id,
            [GEN_AI.conversationId]: this.runId!,
            'delta.iteration': event.iteration,
            'delta.tool.status': event.status,
            ...(event.exit_code === null ? {} : { 'delta.tool.exit_code': event.exit_code }),
            ...(failed ? { [ERROR_TYPE]: event.status } : {}),
            ...(this.options.content
              ? {
                  ...(request ? { [GEN_AI.toolCallArguments]: JSON.stringify(request.tool_args) } : {}),
                  [GEN_AI.toolCallResult]: event.observation_content,
                }
              : {}),
          },
          ...(failed
            ? { error: `${event.tool_name} ended ${event.status}${event.exit_code === null ? '' : ` (exit ${event.exit_code})`}` }
            : {}),
        };
      }
      case 'ERROR':
        engine.lastError = { code: event.error_code ?? 'ERROR', message: event.error_message };
        return undefined;
      case 'ENGINE_END': {
        this.engine = undefined;
        const failed = event.status === 'FAILED';
        return this.engineSpan(
          engine,
          at,
          {
            'delta.run.status': event.status,
            'delta.run.final_iteration': event.final_iteration,
            ...(event.reason ? { 'delta.run.reason': event.reason } : {}),
            ...(failed ? { [ERROR_TYPE]: engine.lastError?.code ?? 'FAILED' } : {}),
          },
          failed ? (engine.lastError?.message ?? event.reason ?? 'the run failed') : undefined,
        );
      }
      default:
        return undefined;
    }
  }

  private engineSpan(engine: OpenEngine, endMs: number, attributes: SpanAttributes, error?: string): SpanRecord {
    return {
      traceId: this.traceId,
      spanId: engine.spanId,
      name: `${GEN_AI_OPERATION.invokeAgent} ${engine.agentName}`,
      kind: 'internal',
      startMs: engine.startMs,
      endMs,
      attributes: {
        [GEN_AI.operationName]: GEN_AI_OPERATION.invokeAgent,
        [GEN_AI.agentName]: engine.agentName,
        [GEN_AI.conversationId]: this.runId!,
        ...(engine.model ? { [GEN_AI.requestModel]: engine.model } : {}),
        ...usageAttributes(engine.usage),
        'delta.run.resumed': engine.resumed,
        ...attributes,
      },
      ...(error === undefined ? {} : { error }),
    };
  }
}

/** Every span of a recorded run, in the order they complete. */
export function runSpans(events: Iterable<JournalEvent>, options: SpanOptions = {}): SpanRecord[] {
  const builder = new RunSpanBuilder(options);
  const spans: SpanRecord[] = [];
  for (const event of events) spans.push(...builder.add(event));
  spans.push(...builder.finish());
  return spans;
}
