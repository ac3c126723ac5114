import { z } from 'zod';

/**
 * One tool call the fake model makes. `arguments` is JSON-encoded; `raw_arguments` is sent verbatim. The
 * other keys reproduce what real servers send: an empty `id: ''`, no id (`omit_id`), arguments as a JSON
 * object instead of text (`arguments_as_object`), `name: null`, or no `function` at all (`no_function`).
 */
export const ScriptToolCall = z
  .strictObject({
    id: z.string().optional(),
    omit_id: z.boolean().optional(),
    name: z.string().min(1).nullable(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    raw_arguments: z.string().optional(),
    arguments_as_object: z.boolean().optional(),
    no_function: z.boolean().optional(),
  })
  .refine((call) => call.arguments === undefined || call.raw_arguments === undefined, {
    message: 'give either arguments or raw_arguments, not both',
    path: ['raw_arguments'],
  });
export type ScriptToolCall = z.infer<typeof ScriptToolCall>;

/** An HTTP error the fake model answers with, in the OpenAI error shape. */
export const ScriptHttpError = z.strictObject({
  status: z.number().int().min(400).max(599),
  message: z.string().optional(),
  type: z.string().optional(),
  code: z.string().optional(),
  /** Sent as the `x-should-retry` header, which the openai SDK obeys; omitted by default. */
  should_retry: z.boolean().optional(),
  /** Sent as the `Retry-After` header (seconds). */
  retry_after: z.number().min(0).optional(),
});
export type ScriptHttpError = z.infer<typeof ScriptHttpError>;

/** A response written exactly as given: any status, content type and body (`body` text, or `json` serialized). */
export const ScriptRawResponse = z
  .strictObject({
    status: z.number().int().min(100).max(599).default(200),
    content_type: z.string().optional(),
    body: z.string().optional(),
    json: z.unknown().optional(),
  })
  .refine((raw) => (raw.body !== undefined) !== 'json' in raw, {
    message: 'give either body or json',
    path: ['body'],
  });
export type ScriptRawResponse = z.infer<typeof ScriptRawResponse>;

/**
 * A response of `bytes` bytes (of the text or of one tool call's arguments), generated as it is sent so the
 * server never holds it; `chunk_delay_ms` paces it, `drop_after_bytes` cuts the connection part way.
 */
export const ScriptLargeResponse = z.strictObject({
  bytes: z.number().int().min(1),
  in: z.enum(['content', 'arguments']).default('content'),
  /** The tool the arguments are for (with `in: arguments`). */
  tool: z.string().min(1).default('write_file'),
  chunk_bytes: z.number().int().min(1).default(65_536),
  chunk_delay_ms: z.number().int().min(0).default(0),
});
export type ScriptLargeResponse = z.infer<typeof ScriptLargeResponse>;

/**
 * Which requests a step answers: those for this model, and those whose last user or tool message contains
 * this text. A step without `when` answers any request.
 */
export const ScriptWhen = z
  .strictObject({
    model: z.string().min(1).optional(),
    last_message: z.string().min(1).optional(),
  })
  .refine((when) => when.model !== undefined || when.last_message !== undefined, {
    message: 'when: needs model or last_message',
  });
export type ScriptWhen = z.infer<typeof ScriptWhen>;

/** What the fake model does for one chat-completions request. */
export const ScriptStep = z
  .strictObject({
    /** Answer only a request that matches (the first unused step that matches answers it). */
    when: ScriptWhen.optional(),
    content: z.string().nullable().optional(),
    /** The model's reasoning, sent where the server profile puts it (`reasoning_content` by default). */
    reasoning: z.string().optional(),
    tool_calls: z.array(ScriptToolCall).min(1).optional(),
    error: ScriptHttpError.optional(),
    raw: ScriptRawResponse.optional(),
    large: ScriptLargeResponse.optional(),
    delay_ms: z.number().int().min(0).optional(),
    /** Cut the connection after sending this many bytes of the answer. */
    drop_after_bytes: z.number().int().min(0).optional(),
    /** Stop sending for this long after the answer's first bytes (the idle timeout counts it). */
    stall_ms: z.number().int().min(0).optional(),
    usage: z
      .strictObject({
        prompt_tokens: z.number().int().min(0),
        completion_tokens: z.number().int().min(0),
        cached_tokens: z.number().int().min(0).optional(),
        reasoning_tokens: z.number().int().min(0).optional(),
      })
      .optional(),
  })
  .superRefine((step, context) => {
    const answers = step.content !== undefined || step.tool_calls !== undefined;
    const others = [step.error, step.raw, step.large].filter((value) => value !== undefined).length;
    if (step.error !== undefined && answers) {
      context.addIssue({ code: 'custom', path: ['error'], message: 'an error step cannot also have content or tool_calls' });
    } else if (others > 1 || (others === 1 && answers)) {
      context.addIssue({ code: 'custom', path: [], message: 'a step gives one of: an answer (content, tool_calls), error, raw or large' });
    } else if (others === 0 && !answers) {
      context.addIssue({ code: 'custom', path: [], message: 'a step needs content, tool_calls, error, raw or large' });
    }
  });
export type ScriptStep = z.infer<typeof ScriptStep>;
/** A step as written: the keys with defaults may be left out. */
export type ScriptStepInput = z.input<typeof ScriptStep>;
