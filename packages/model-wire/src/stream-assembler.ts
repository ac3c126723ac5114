import { ModelResponseError } from './wire-errors.js';

/** One piece of an answer as it streams in: text, reasoning, or part of a tool call. */
export type StreamDelta =
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments?: string };

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface CallUnderway {
  id: string | undefined;
  type: string | undefined;
  name: string | undefined;
  /** Argument pieces, or the object a server sent whole. */
  pieces: string[];
  object: unknown;
  extra: JsonObject;
  index: number | undefined;
}

/**
 * Folds `chat.completion.chunk` events into one chat completion in the non-streamed shape, so a streamed
 * answer goes through the same normalisation as any other. Servers differ in how they stream tool calls:
 * OpenAI numbers each call's deltas with `index`; Gemini and older Ollama send no index (or `null`) and
 * Gemini an empty id; some send every call whole in one delta. The rules, in order: a delta with an index
 * belongs to the call with that index; without one, a delta whose id differs from the last call's, or that
 * names a function when the last call already has a name, starts a new call; anything else continues the
 * last call.
 */
export class StreamAssembler {
  private id: unknown;
  private created: unknown;
  private model: unknown;
  private systemFingerprint: unknown;
  private role: string | undefined;
  private content: string[] | undefined;
  private refusal: string[] | undefined;
  private reasoning: { field: 'reasoning_content' | 'reasoning'; pieces: string[] } | undefined;
  private reasoningDetails: unknown[] = [];
  private calls: CallUnderway[] = [];
  private finishReason: string | null = null;
  private usage: unknown;
  private sawChoice = false;

  /** Whether a choice arrived at all, and whether it said why it finished. */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  get answered(): boolean {
    return this.sawChoice;
  }

  /** Adds one parsed `data:` event; `onDelta` hears what it adds to the answer. */
  add(chunk: JsonObject, onDelta?: (delta: StreamDelta) => void): void {
    this.id ??= chunk.id;
    this.created ??= chunk.created;
    this.model ??= chunk.model;
    this.systemFingerprint ??= chunk.system_fingerprint;
    if (isObject(chunk.usage)) this.usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      // One answer is asked for (n = 1): a second choice, if a server sends one, is not part of it.
      if (!isObject(choice) || (typeof choice.index === 'number' && choice.index !== 0)) continue;
      this.sawChoice = true;
      const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : {};
      this.addDelta(delta, onDelta);
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') this.finishReason = choice.finish_reason;
    }
  }

  private addDelta(delta: JsonObject, onDelta?: (delta: StreamDelta) => void): void {
    if (typeof delta.role === 'string') this.role = delta.role;
    const text = textOf(delta.content);
    if (text !== undefined) {
      this.content ??= [];
      this.content.push(text);
      if (text !== '') onDelta?.({ type: 'content', text });
    }
    if (typeof delta.refusal === 'string') {
      this.refusal ??= [];
      this.refusal.push(delta.refusal);
    }
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      const piece = delta[field];
      if (typeof piece !== 'string') continue;
      this.reasoning ??= { field, pieces: [] };
      if (this.reasoning.field !== field) continue;
      this.reasoning.pieces.push(piece);
      if (piece !== '') onDelta?.({ type: 'reasoning', text: piece });
    }
    if (Array.isArray(delta.reasoning_details)) this.reasoningDetails.push(...delta.reasoning_details);
    const calls = delta.tool_calls;
    if (calls === undefined || calls === null) return;
    if (!Array.isArray(calls)) {
      throw new ModelResponseError(`A streamed delta's "tool_calls" is not a list: ${JSON.stringify(calls).slice(0, 200)}`, {
        code: 'MODEL_MALFORMED_RESPONSE',
      });
    }
    for (const call of calls) if (isObject(call)) this.addCall(call, onDelta);
  }

  private target(call: JsonObject): CallUnderway {
    const index = typeof call.index === 'number' ? call.index : undefined;
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
    const name =
      isObject(call.function) && typeof call.function.name === 'string' && call.function.name !== '' ? call.function.name : undefined;
    const last = this.calls.at(-1);
    let found: CallUnderway | undefined;
    if (index !== undefined) found = this.calls.find((candidate) => candidate.index === index);
    else if (last && !(id !== undefined && last.id !== undefined && id !== last.id) && !(name !== undefined && last.name !== undefined))
      found = last;
    if (found) return found;
    const created: CallUnderway = { id: undefined, type: undefined, name: undefined, pieces: [], object: undefined, extra: {}, index };
    this.calls.push(created);
    return created;
  }

  private addCall(call: JsonObject, onDelta?: (delta: StreamDelta) => void): void {
    const target = this.target(call);
    const event: StreamDelta & { type: 'tool_call' } = { type: 'tool_call', index: this.calls.indexOf(target) };
    if (typeof call.id === 'string' && call.id !== '' && (target.id === undefined || target.id === '')) target.id = event.id = call.id;
    else if (call.id === '' && target.id === undefined) target.id = '';
    if (typeof call.type === 'string') target.type = call.type;
    for (const [key, value] of Object.entries(call)) {
      if (key !== 'id' && key !== 'type' && key !== 'function' && key !== 'index') target.extra[key] = value;
    }
    const fn = isObject(call.function) ? call.function : undefined;
    if (fn) {
      if (typeof fn.name === 'string' && fn.name !== '' && target.name === undefined) target.name = event.name = fn.name;
      if (typeof fn.arguments === 'string') {
        target.pieces.push(fn.arguments);
        if (fn.arguments !== '') event.arguments = fn.arguments;
      } else if (fn.arguments !== undefined && fn.arguments !== null) {
        target.object = fn.arguments;
      }
    }
    if (event.id !== undefined || event.name !== undefined || event.arguments !== undefined) onDelta?.(event);
  }

  /** The answer so far as a chat completion in the non-streamed shape. */
  completion(): JsonObject {
    const message: JsonObject = { role: this.role ?? 'assistant', content: this.content ? this.content.join('') : null };
    if (this.refusal) message.refusal = this.refusal.join('');
    if (this.reasoning) message[this.reasoning.field] = this.reasoning.pieces.join('');
    if (this.reasoningDetails.length > 0) message.reasoning_details = this.reasoningDetails;
    if (this.calls.length > 0) {
      message.tool_calls = this.calls.map((call) => {
        const fn: JsonObject = {};
        if (call.name !== undefined) fn.name = call.name;
        fn.arguments = call.object !== undefined && call.pieces.join('') === '' ? call.object : call.pieces.join('');
        return {
          ...(call.id !== undefined ? { id: call.id } : {}),
          type: call.type ?? 'function',
          function: fn,
          ...call.extra,
        };
      });
    }
    return {
      ...(this.id !== undefined ? { id: this.id } : {}),
      object: 'chat.completion',
      ...(this.created !== undefined ? { created: this.created } : {}),
      ...(this.model !== undefined ? { model: this.model } : {}),
      choices: this.sawChoice ? [{ index: 0, message, finish_reason: this.finishReason }] : [],
      ...(this.usage !== undefined ? { usage: this.usage } : {}),
      ...(this.systemFingerprint !== undefined ? { system_fingerprint: this.systemFingerprint } : {}),
    };
  }
}

/** Text of a content delta: a string, or the texts of a list of parts. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((part) => (typeof part === 'string' ? part : isObject(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}
