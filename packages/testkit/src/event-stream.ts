/** What a client rebuilds from a streamed chat completion. */
export interface StreamedMessage {
  id: string | undefined;
  model: string | undefined;
  role: string | undefined;
  content: string | null;
  tool_calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  finish_reason: string | null;
  usage: Record<string, number> | null;
}

/** A server's JSON event, as sent: read field by field by tests and the reassembly. */
// biome-ignore lint/suspicious/noExplicitAny: an event is whatever JSON the server sent
export type StreamEvent = any;

/** Parses a `text/event-stream` body into its JSON events; `done` says whether `data: [DONE]` ended it. */
export function parseEventStream(text: string): { events: StreamEvent[]; done: boolean } {
  const events: StreamEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data === '') continue;
    if (data === '[DONE]') return { events, done: true };
    events.push(JSON.parse(data));
  }
  return { events, done: false };
}

/** Folds `chat.completion.chunk` events into one message, as the openai SDK's stream helpers do. */
export function reassembleStream(events: StreamEvent[]): StreamedMessage {
  const message: StreamedMessage = {
    id: undefined,
    model: undefined,
    role: undefined,
    content: null,
    tool_calls: [],
    finish_reason: null,
    usage: null,
  };
  for (const event of events) {
    message.id ??= event.id;
    message.model ??= event.model;
    if (event.usage) message.usage = event.usage;
    for (const choice of event.choices ?? []) {
      const delta = choice.delta ?? {};
      if (delta.role) message.role = delta.role;
      if (typeof delta.content === 'string') message.content = (message.content ?? '') + delta.content;
      for (const call of delta.tool_calls ?? []) {
        message.tool_calls[call.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
        const target = message.tool_calls[call.index]!;
        if (call.id) target.id = call.id;
        if (call.function?.name) target.function.name += call.function.name;
        if (call.function?.arguments) target.function.arguments += call.function.arguments;
      }
      if (choice.finish_reason) message.finish_reason = choice.finish_reason;
    }
  }
  return message;
}
