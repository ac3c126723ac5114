import { parseJson } from '@delta/errors';
import type { ModelTurn } from '@delta/model-wire';

/** A text at least this long is kept once, in the journal, and response.json points there (docs/models.md). */
export const LARGE_TEXT_BYTES = 64 * 1024;

/** A text of response.json that is kept in the journal instead: where it was, how long, and where it is. */
export interface MovedText {
  /** Its place in response.json, e.g. `choices[0].message.tool_calls[0].function.arguments`. */
  path: string;
  /** Its length in UTF-8 bytes (as JSON text, for arguments sent as an object). */
  bytes: number;
  /** Its place in the THOUGHT whose `llm_invocation_ref` is this invocation, e.g. `tool_calls[0].arguments`. */
  journal: string;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Large for storage: cheap on length first, so a small text never pays for a byte count. */
export function isLargeText(text: string): boolean {
  return text.length >= LARGE_TEXT_BYTES || (text.length * 3 >= LARGE_TEXT_BYTES && Buffer.byteLength(text, 'utf8') >= LARGE_TEXT_BYTES);
}

function marker(invocationId: string, journalPath: string, bytes: number): string {
  return `<delta: ${bytes} bytes kept once, in journal.jsonl: THOUGHT with llm_invocation_ref ${invocationId}, ${journalPath}>`;
}

/**
 * The chat completion as response.json records it: as the server sent it (assembled, when streamed),
 * except that a large text the journal's THOUGHT holds word for word (the content, a call's arguments) is
 * replaced by a marker saying where it is, so that it is stored once. `moved` lists each replacement, for
 * the invocation's metadata.json. The completion itself is not changed.
 */
export function responseRecord(completion: unknown, turn: ModelTurn, invocationId: string): { record: unknown; moved: MovedText[] } {
  const choice = isObject(completion) && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = isObject(choice) && isObject(choice.message) ? choice.message : undefined;
  if (!message) return { record: completion, moved: [] };
  const moved: MovedText[] = [];
  let copy: JsonObject | undefined;
  if (typeof message.content === 'string' && message.content === turn.content && isLargeText(message.content)) {
    const bytes = Buffer.byteLength(message.content, 'utf8');
    copy = { ...message, content: marker(invocationId, 'content', bytes) };
    moved.push({ path: 'choices[0].message.content', bytes, journal: 'content' });
  }
  if (Array.isArray(message.tool_calls)) {
    const calls = message.tool_calls.map((call: unknown, index: number) => {
      const recorded = turn.tool_calls[index];
      if (!isObject(call) || !isObject(call.function) || !recorded || recorded.problem !== undefined) return call;
      const sent = call.function.arguments;
      const same = typeof sent === 'string' ? sent === recorded.arguments : recorded.arguments_type === 'object';
      if (!same || !isLargeText(recorded.arguments)) return call;
      const bytes = Buffer.byteLength(recorded.arguments, 'utf8');
      const journal = `tool_calls[${index}].arguments`;
      moved.push({ path: `choices[0].message.tool_calls[${index}].function.arguments`, bytes, journal });
      return { ...call, function: { ...call.function, arguments: marker(invocationId, journal, bytes) } };
    });
    if (moved.some((item) => item.journal !== 'content')) copy = { ...(copy ?? message), tool_calls: calls };
  }
  if (!copy) return { record: completion, moved };
  const choices = (completion as JsonObject).choices as unknown[];
  return { record: { ...(completion as JsonObject), choices: [{ ...(choice as JsonObject), message: copy }, ...choices.slice(1)] }, moved };
}

const MARKER =
  /^<delta: \d+ bytes kept once, in journal\.jsonl: THOUGHT with llm_invocation_ref \S+, (content|tool_calls\[(\d+)\]\.arguments)>$/;

/**
 * The chat completion as the server sent it, from its response.json record: each text kept once in the
 * journal (a marker here) is put back from the THOUGHT of that call, so a replay serves the whole answer.
 */
export function restoreStoredTexts(
  record: unknown,
  thought: { content: string | null; tool_calls: ReadonlyArray<{ arguments: string; arguments_type?: string | undefined }> },
): unknown {
  const choice = isObject(record) && Array.isArray(record.choices) ? record.choices[0] : undefined;
  const message = isObject(choice) && isObject(choice.message) ? choice.message : undefined;
  if (!message) return record;
  const stored = (value: unknown) => (typeof value === 'string' ? MARKER.exec(value) : null);
  if (stored(message.content)?.[1] === 'content' && thought.content !== null) message.content = thought.content;
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      const index = isObject(call) && isObject(call.function) ? stored(call.function.arguments)?.[2] : undefined;
      const recorded = index === undefined ? undefined : thought.tool_calls[Number(index)];
      if (!recorded) continue;
      // Arguments the server sent as an object go back as one, as it sent them. The journal is read back
      // from .delta/: arguments marked as an object that are not JSON are an error that names them.
      (call as { function: JsonObject }).function.arguments =
        recorded.arguments_type === 'object'
          ? parseJson(recorded.arguments, `the THOUGHT's tool_calls[${index}].arguments (recorded as a JSON object)`, {
              hint: 'The journal of the recorded run was changed after the run; replay a run whose journal is intact.',
            })
          : recorded.arguments;
    }
  }
  return record;
}
