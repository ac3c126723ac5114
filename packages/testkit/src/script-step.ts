import { z } from 'zod';

/** One tool call the fake model makes. `arguments` is JSON-encoded; `raw_arguments` is sent verbatim. */
export const ScriptToolCall = z
  .strictObject({
    id: z.string().min(1).optional(),
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).optional(),
    raw_arguments: z.string().optional(),
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
});
export type ScriptHttpError = z.infer<typeof ScriptHttpError>;

/** What the fake model does for one chat-completions request. */
export const ScriptStep = z
  .strictObject({
    content: z.string().nullable().optional(),
    tool_calls: z.array(ScriptToolCall).min(1).optional(),
    error: ScriptHttpError.optional(),
    delay_ms: z.number().int().min(0).optional(),
    usage: z
      .strictObject({
        prompt_tokens: z.number().int().min(0),
        completion_tokens: z.number().int().min(0),
      })
      .optional(),
  })
  .superRefine((step, context) => {
    const answers = step.content !== undefined || step.tool_calls !== undefined;
    if (step.error !== undefined && answers) {
      context.addIssue({ code: 'custom', path: ['error'], message: 'an error step cannot also have content or tool_calls' });
    } else if (step.error === undefined && !answers) {
      context.addIssue({ code: 'custom', path: [], message: 'a step needs content, tool_calls or error' });
    }
  });
export type ScriptStep = z.infer<typeof ScriptStep>;
