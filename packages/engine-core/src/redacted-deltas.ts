import type { StreamDelta } from '@delta/model-wire';
import type { ModelDelta } from './model-client.js';
import type { Secrets } from './redact-secret.js';
import { RedactingStream } from './redact-stream.js';

/**
 * The listener's deltas with the key taken out, even one cut between two deltas: each kind of text (the
 * content, the reasoning, a call's arguments) is its own stream. `end` passes on what was held back.
 */
export function redactedDeltas(
  listener: ((delta: ModelDelta) => void) | undefined,
  secrets: Secrets,
  iteration: number,
  invocationId: string,
) {
  if (!listener) return undefined;
  const streams = new Map<string, RedactingStream<string>>();
  const streamOf = (key: string, make: (text: string) => StreamDelta) => {
    let stream = streams.get(key);
    if (!stream) {
      stream = new RedactingStream<string>(secrets, (text) => listener({ iteration, invocation_id: invocationId, ...make(text) }));
      streams.set(key, stream);
    }
    return stream;
  };
  return {
    push: (delta: StreamDelta) => {
      if (delta.type !== 'tool_call') {
        streamOf(delta.type, (text) => ({ type: delta.type, text })).push(delta.text);
        return;
      }
      const { arguments: text, ...call } = delta;
      // The call's id and name go with the first piece of its arguments that is passed on, or alone.
      let fields: typeof call | undefined = call;
      const stream = streamOf(`tool_call:${delta.index}`, (piece) => {
        const sent = { ...(fields ?? { type: 'tool_call' as const, index: delta.index }), arguments: piece };
        fields = undefined;
        return sent;
      });
      if (text !== undefined && text !== '') stream.push(text);
      if (fields !== undefined && (fields.id !== undefined || fields.name !== undefined || text === undefined || text === '')) {
        listener({ iteration, invocation_id: invocationId, ...fields });
      }
    },
    end: () => {
      for (const stream of streams.values()) stream.end();
    },
  };
}
