import type { ScriptLargeResponse } from './script-step.js';
import { buildReply } from './assistant-reply.js';
import { type CompletionIdentity, completionBody, streamChunks } from './completion-body.js';
import { openai } from './profiles/openai.js';

const FILL = '@@DELTA_FILL@@';

function* filler(total: number, chunkBytes: number): Generator<string> {
  for (let left = total; left > 0; left -= chunkBytes) yield 'x'.repeat(Math.min(chunkBytes, left));
}

/**
 * The pieces of an answer whose text, or whose one tool call's arguments (`{"data":"xxx..."}`), is `bytes`
 * long, in the official API's shapes; generated as they are sent.
 */
export function* largeAnswer(large: ScriptLargeResponse, identity: CompletionIdentity, streamed: boolean): Generator<string> {
  const inArguments = large.in === 'arguments';
  if (!streamed) {
    const step = inArguments ? { tool_calls: [{ name: large.tool, raw_arguments: `{"data":"${FILL}"}` }] } : { content: FILL };
    const reply = buildReply(step, identity.requestIndex, 0);
    const [head, tail] = JSON.stringify(completionBody(reply, identity, openai.dialect)).split(FILL) as [string, string];
    yield head;
    yield* filler(large.bytes, large.chunk_bytes);
    yield tail;
    return;
  }
  const step = inArguments ? { tool_calls: [{ name: large.tool, raw_arguments: '' }] } : { content: '' };
  const chunks = streamChunks(buildReply(step, identity.requestIndex, 0), identity, true, openai.dialect);
  const frame = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
  const at = inArguments ? chunks.findIndex((chunk) => JSON.stringify(chunk).includes('"tool_calls"')) : 0;
  const template = structuredClone(chunks[0]!) as { choices: Array<{ delta: unknown }> };
  template.choices[0]!.delta = inArguments ? { tool_calls: [{ index: 0, function: { arguments: FILL } }] } : { content: FILL };
  const [head, tail] = frame(template).split(FILL) as [string, string];
  for (const chunk of chunks.slice(0, at + 1)) yield frame(chunk);
  if (inArguments) yield `${head}{\\"data\\":\\"${tail}`;
  for (const piece of filler(large.bytes, large.chunk_bytes)) yield `${head}${piece}${tail}`;
  if (inArguments) yield `${head}\\"}${tail}`;
  for (const chunk of chunks.slice(at + 1)) yield frame(chunk);
  yield 'data: [DONE]\n\n';
}
