import type { ModelTurn, ReasoningField, WireToolCall, WireUsage } from './model-turn.js';
import { ModelResponseError, ModelWireError } from './wire-errors.js';
import { transientStatus } from './retry-policy.js';

/** The name recorded for a call the server sent without a usable function name. */
export const INVALID_TOOL_CALL_NAME = 'invalid_tool_call';

export interface NormaliseOptions {
  /** Where the answer came from, for messages (the chat-completions URL). */
  endpoint: string;
  /** The HTTP status it came with, for messages. */
  status?: number | undefined;
  /** An id for the call at `index` whose id is missing, empty or repeated. Default: `call_delta_<index + 1>`. */
  assignId?: ((index: number) => string) | undefined;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** At most 200 characters of a value's JSON, for messages. */
function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

const RETRY_HINT = 'The engine retries it; if it keeps happening, `delta continue -w <workspace>` sends the same request again later.';

/** A JSON body that is no chat completion (`null`, `{}`, a proxy's error object): a transient fault of the server. */
function notACompletion(value: unknown, options: NormaliseOptions): ModelWireError {
  if (isObject(value) && value.error !== undefined) {
    const error = value.error;
    const message = isObject(error) && typeof error.message === 'string' ? error.message : preview(error);
    const code = isObject(error) ? (typeof error.code === 'number' ? error.code : Number(error.status ?? Number.NaN)) : Number.NaN;
    return new ModelWireError(`The model endpoint ${options.endpoint} answered HTTP ${options.status ?? 200} with an error: ${message}`, {
      code: 'MODEL_ERROR',
      transient: Number.isFinite(code) ? transientStatus(code) : true,
      status: options.status,
      hint: RETRY_HINT,
    });
  }
  return new ModelWireError(
    `The model endpoint ${options.endpoint} answered HTTP ${options.status ?? 200} (application/json) with JSON that is not a chat completion (no "choices" list): ${preview(value)}`,
    { code: 'MODEL_BAD_RESPONSE', transient: true, status: options.status, hint: RETRY_HINT },
  );
}

function emptyAnswer(what: string, options: NormaliseOptions): ModelResponseError {
  return new ModelResponseError(
    `The model endpoint ${options.endpoint} answered a chat completion with ${what}: there is no answer to act on.`,
    {
      code: 'MODEL_EMPTY_RESPONSE',
      status: options.status,
      hint: RETRY_HINT,
    },
  );
}

/** Text of content given as parts (`[{type: "text", text}]`); other parts are left out and said so. */
function contentText(content: unknown, notes: string[], options: NormaliseOptions): string | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    throw new ModelResponseError(
      `The model endpoint ${options.endpoint} answered a message whose content is neither text nor a list of parts: ${preview(content)}`,
      { code: 'MODEL_MALFORMED_RESPONSE', status: options.status, hint: RETRY_HINT },
    );
  }
  const texts: string[] = [];
  let skipped = 0;
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
    else skipped += 1;
  }
  notes.push(
    `content came as ${content.length} part(s) and was joined into text${skipped > 0 ? `; ${skipped} part(s) without text were left out` : ''}`,
  );
  return texts.join('');
}

function argumentsText(value: unknown): { text: string; type?: 'object' } | { problem: string } {
  if (typeof value === 'string') return { text: value };
  if (value === undefined || value === null) return { text: '{}' };
  if (isObject(value) || Array.isArray(value)) return { text: JSON.stringify(value), type: 'object' };
  return { problem: `its arguments are ${preview(value)}, not a JSON object` };
}

const CALL_KEYS = new Set(['id', 'type', 'function', 'index']);

/**
 * The tool calls of a message, each with a usable, unique id. A call the engine cannot run (no function,
 * no name) is kept under the name `invalid_tool_call` with a `problem` the model reads as its result, so
 * the conversation stays valid and the model can correct itself.
 */
function toolCalls(value: unknown, notes: string[], options: NormaliseOptions): WireToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw new ModelResponseError(
      `The model endpoint ${options.endpoint} answered a message whose "tool_calls" is ${typeof value === 'object' ? 'an object' : `a ${typeof value}`}, not a list: ${preview(value)}`,
      { code: 'MODEL_MALFORMED_RESPONSE', status: options.status, hint: RETRY_HINT },
    );
  }
  const assignId = options.assignId ?? ((index: number) => `call_delta_${index + 1}`);
  const taken = new Set<string>();
  for (const item of value) if (isObject(item) && typeof item.id === 'string') taken.add(item.id);
  const used = new Set<string>();
  return value.map((item, index): WireToolCall => {
    const number = index + 1;
    const call = isObject(item) ? item : {};
    const serverId = typeof call.id === 'string' ? call.id : null;
    let id = serverId;
    if (id === null || id === '' || used.has(id)) {
      id = assignId(index);
      for (let suffix = 2; taken.has(id) || used.has(id); suffix += 1) id = `${assignId(index)}_${suffix}`;
      const why = serverId === null ? 'no id' : serverId === '' ? 'an empty id' : `the id "${serverId}" of an earlier call`;
      notes.push(`tool call ${number} came with ${why}; the engine gave it the id ${id}`);
    }
    used.add(id);
    const identity = { id, ...(id !== serverId ? { server_id: serverId } : {}) };
    const extraEntries = Object.entries(call).filter(([key]) => !CALL_KEYS.has(key));
    const extra = extraEntries.length > 0 ? { extra: Object.fromEntries(extraEntries) } : {};
    const invalid = (why: string): WireToolCall => {
      notes.push(`tool call ${number} ${why}; the model is told so as its result`);
      return {
        ...identity,
        name: INVALID_TOOL_CALL_NAME,
        arguments: '{}',
        ...extra,
        problem: `Your tool call number ${number} could not be run: ${why} (the server sent ${preview(item)}). Call one of your tools by its name, with its arguments as a JSON object.`,
      };
    };
    if (!isObject(item)) return invalid('is not an object');
    const fn = call.function;
    if (!isObject(fn)) return invalid('has no function');
    if (typeof fn.name !== 'string' || fn.name.trim() === '') return invalid('has no function name');
    const args = argumentsText(fn.arguments);
    if ('problem' in args) return invalid(args.problem);
    if (args.type) notes.push(`tool call ${number} sent its arguments as a JSON object; they are sent back as JSON text`);
    return { ...identity, name: fn.name, arguments: args.text, ...(args.type ? { arguments_type: args.type } : {}), ...extra };
  });
}

function reasoningOf(message: JsonObject): Pick<ModelTurn, 'reasoning' | 'reasoning_field' | 'reasoning_details'> {
  const details = Array.isArray(message.reasoning_details) && message.reasoning_details.length > 0 ? message.reasoning_details : undefined;
  let field: ReasoningField | undefined;
  if (typeof message.reasoning_content === 'string' && message.reasoning_content !== '') field = 'reasoning_content';
  else if (typeof message.reasoning === 'string' && message.reasoning !== '') field = 'reasoning';
  let text = field ? (message[field] as string) : undefined;
  if (text === undefined && details) {
    const pieces = details.flatMap((detail) =>
      isObject(detail) ? [detail.text, detail.summary].filter((piece): piece is string => typeof piece === 'string') : [],
    );
    if (pieces.length > 0) text = pieces.join('');
  }
  return {
    ...(text !== undefined ? { reasoning: text } : {}),
    ...(field ? { reasoning_field: field } : {}),
    ...(details ? { reasoning_details: details } : {}),
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Usage with the details servers report: cached prompt tokens and reasoning tokens. */
export function usageOf(value: unknown): WireUsage | undefined {
  if (!isObject(value)) return undefined;
  const prompt = count(value.prompt_tokens);
  const completion = count(value.completion_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  const promptDetails = isObject(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const completionDetails = isObject(value.completion_tokens_details) ? value.completion_tokens_details : {};
  const cached = count(promptDetails.cached_tokens) ?? count(value.prompt_cache_hit_tokens);
  const reasoning = count(completionDetails.reasoning_tokens);
  return {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: count(value.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
    ...(cached !== undefined ? { cached_tokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
  };
}

/**
 * The one normalisation step between the wire and the journal. Takes a chat completion in the
 * non-streamed shape (a streamed answer is assembled into it first) and returns what the engine acts on,
 * or throws: a body that is no chat completion is a transient ModelWireError; no choice, no message, or
 * `tool_calls` that is not a list is a ModelResponseError (retried like a transient fault).
 */
export function normaliseCompletion(body: unknown, options: NormaliseOptions): ModelTurn {
  if (!isObject(body) || !Array.isArray(body.choices)) throw notACompletion(body, options);
  if (body.choices.length === 0) throw emptyAnswer('no choices ("choices": [])', options);
  const choice = body.choices[0];
  if (!isObject(choice) || !isObject(choice.message)) throw emptyAnswer('a choice that has no message', options);
  const message = choice.message;
  const notes: string[] = [];
  const content = contentText(message.content, notes, options);
  const calls = toolCalls(message.tool_calls, notes, options);
  const usage = usageOf(body.usage);
  const refusal = typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : undefined;
  return {
    content,
    ...reasoningOf(message),
    ...(refusal !== undefined ? { refusal } : {}),
    tool_calls: calls,
    finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    ...(usage ? { usage } : {}),
    normalised: notes,
  };
}
